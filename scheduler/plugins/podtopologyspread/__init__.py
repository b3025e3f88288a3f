"""PodTopologySpread (upstream ``plugins/podtopologyspread``): common constraint handling,
the Filter side (DoNotSchedule) and the Score side (ScheduleAnyway)."""
