"""Flow control: max-in-flight limits with fair queuing per priority level and flow."""
