"""What the ReplicaSet and Deployment controllers share (upstream's controller_utils.go):
expectations, pod creation and deletion with events, active-pod filtering and ranking,
owner-reference claiming, the ``controller-uid`` index and the template hash."""
