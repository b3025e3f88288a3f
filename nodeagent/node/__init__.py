"""The node side of the agent: registration and node status (``status``), the node Lease
(``lease``), the loop that serves many nodes (``heartbeats``) and the HTTPS API (``server``)."""
