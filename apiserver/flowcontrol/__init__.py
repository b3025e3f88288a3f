"""Flow control: max-in-flight limits with fair queuing per priority level and flow.

- ``maxinflight.py``: upstream's ``--max-requests-inflight`` / ``--max-mutating-requests-inflight``
  limiter (used when priority and fairness is off).
- API Priority and Fairness: ``schema.py`` (FlowSchema / PriorityLevel shapes),
  ``bootstrap.py`` (upstream's built-in configuration, the only one served), ``match.py``
  (which schema a request matches), ``controller.py`` (classification and one ``QueueSet``
  per priority level), ``queueset.py`` (fair queuing with shuffle sharding),
  ``retryafter.py`` (the ``Retry-After`` a rejection suggests), ``metrics.py``.
- ``longrunning.py``: which requests neither limiter counts.

The HTTP side is ``apiserver.filters.flowcontrol``.
"""
