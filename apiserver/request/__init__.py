"""What is known of the request in progress, below every stage that reads it (upstream's
``endpoints/request`` and ``authentication/user``): ``info`` (path -> verb, resource, ...),
``queryparams`` (the query parameters' conversions), ``user`` (who is asking) and ``context``
(the request context the filters fill in)."""
