"""apps/v1 Deployment and batch/v1 Job and CronJob.

Field facts from k8s.io/api apps/v1 and batch/v1 ``types.go`` at v0.36.3 (``protobuf:`` tag number,
``json:`` name and options, Go type), checked against ``generated.proto``. Notation: ``schema.py``.
"""

SCHEMA = """
message Deployment
   1 metadata ObjectMeta       omitempty
   2 spec     DeploymentSpec   omitempty
   3 status   DeploymentStatus omitempty
message Job
   1 metadata ObjectMeta omitempty
   2 spec     JobSpec    omitempty
   3 status   JobStatus  omitempty
message CronJob
   1 metadata ObjectMeta    omitempty
   2 spec     CronJobSpec   omitempty
   3 status   CronJobStatus omitempty
message DeploymentSpec
   1 replicas                *int32             omitempty
   2 selector                *LabelSelector
   3 template                PodTemplateSpec
   4 strategy                DeploymentStrategy omitempty
   5 minReadySeconds         int32              omitempty
   6 revisionHistoryLimit    *int32             omitempty
   7 paused                  bool               omitempty
   9 progressDeadlineSeconds *int32             omitempty
message DeploymentStatus
   1 observedGeneration  int64                 omitempty
   2 replicas            int32                 omitempty
   3 updatedReplicas     int32                 omitempty
   7 readyReplicas       int32                 omitempty
   4 availableReplicas   int32                 omitempty
   5 unavailableReplicas int32                 omitempty
   9 terminatingReplicas *int32                omitempty
   6 conditions          []DeploymentCondition omitempty
   8 collisionCount      *int32                omitempty
message JobSpec
   1 parallelism             *int32            omitempty
   2 completions             *int32            omitempty
   3 activeDeadlineSeconds   *int64            omitempty
  11 podFailurePolicy        *PodFailurePolicy omitempty
  16 successPolicy           *SuccessPolicy    omitempty
   7 backoffLimit            *int32            omitempty
  12 backoffLimitPerIndex    *int32            omitempty
  13 maxFailedIndexes        *int32            omitempty
   4 selector                *LabelSelector    omitempty
   5 manualSelector          *bool             omitempty
   6 template                PodTemplateSpec
   8 ttlSecondsAfterFinished *int32            omitempty
   9 completionMode          *string           omitempty
  10 suspend                 *bool             omitempty
  14 podReplacementPolicy    *string           omitempty
  15 managedBy               *string           omitempty
message JobStatus
   1 conditions              []JobCondition           omitempty
   2 startTime               *Time                    omitempty
   3 completionTime          *Time                    omitempty
   4 active                  int32                    omitempty
   5 succeeded               int32                    omitempty
   6 failed                  int32                    omitempty
  11 terminating             *int32                   omitempty
   7 completedIndexes        string                   omitempty
  10 failedIndexes           *string                  omitempty
   8 uncountedTerminatedPods *UncountedTerminatedPods omitempty
   9 ready                   *int32                   omitempty
message CronJobSpec
   1 schedule                   string
   8 timeZone                   *string         omitempty
   2 startingDeadlineSeconds    *int64          omitempty
   3 concurrencyPolicy          string          omitempty
   4 suspend                    *bool           omitempty
   5 jobTemplate                JobTemplateSpec
   6 successfulJobsHistoryLimit *int32          omitempty
   7 failedJobsHistoryLimit     *int32          omitempty
message CronJobStatus
   1 active             []ObjectReference omitempty
   4 lastScheduleTime   *Time             omitempty
   5 lastSuccessfulTime *Time             omitempty
message DeploymentStrategy
   1 type          string                   omitempty
   2 rollingUpdate *RollingUpdateDeployment omitempty
message DeploymentCondition
   1 type               string
   2 status             string
   6 lastUpdateTime     Time   omitempty
   7 lastTransitionTime Time   omitempty
   4 reason             string omitempty
   5 message            string omitempty
message PodFailurePolicy
   1 rules []PodFailurePolicyRule
message SuccessPolicy
   1 rules []SuccessPolicyRule
message JobCondition
   1 type               string
   2 status             string
   3 lastProbeTime      Time   omitempty
   4 lastTransitionTime Time   omitempty
   5 reason             string omitempty
   6 message            string omitempty
message UncountedTerminatedPods
   1 succeeded []string omitempty
   2 failed    []string omitempty
message JobTemplateSpec
   1 metadata ObjectMeta omitempty
   2 spec     JobSpec    omitempty
message RollingUpdateDeployment
   1 maxUnavailable *IntOrString omitempty
   2 maxSurge       *IntOrString omitempty
message PodFailurePolicyRule
   1 action          string
   2 onExitCodes     *PodFailurePolicyOnExitCodesRequirement  omitempty
   3 onPodConditions []PodFailurePolicyOnPodConditionsPattern omitempty
message SuccessPolicyRule
   1 succeededIndexes *string omitempty
   2 succeededCount   *int32  omitempty
message PodFailurePolicyOnExitCodesRequirement
   1 containerName *string omitempty
   2 operator      string
   3 values        []int32
message PodFailurePolicyOnPodConditionsPattern
   1 type   string
   2 status string
"""
