"""The CronJob controller (upstream's pkg/controller/cronjob, the v2 controller): Jobs from a
CronJob's template at the times of its schedule."""
