"""core/v1 PodTemplateSpec and PodSpec: scheduling, affinity, tolerations, DNS and pod security context.

Field facts from k8s.io/api core/v1 ``types.go`` at v0.36.3 (``protobuf:`` tag number,
``json:`` name and options, Go type), checked against ``generated.proto``. Notation: ``schema.py``.
"""

SCHEMA = """
message PodTemplateSpec
   1 metadata ObjectMeta omitempty
   2 spec     PodSpec    omitempty
message PodSpec
   1 volumes                       []Volume                   omitempty
  20 initContainers                []Container                omitempty
   2 containers                    []Container
  34 ephemeralContainers           []EphemeralContainer       omitempty
   3 restartPolicy                 string                     omitempty
   4 terminationGracePeriodSeconds *int64                     omitempty
   5 activeDeadlineSeconds         *int64                     omitempty
   6 dnsPolicy                     string                     omitempty
   7 nodeSelector                  map[string]string          omitempty
   8 serviceAccountName            string                     omitempty
   9 serviceAccount                string                     omitempty
  21 automountServiceAccountToken  *bool                      omitempty
  10 nodeName                      string                     omitempty
  11 hostNetwork                   bool                       omitempty
  12 hostPID                       bool                       omitempty
  13 hostIPC                       bool                       omitempty
  27 shareProcessNamespace         *bool                      omitempty
  14 securityContext               *PodSecurityContext        omitempty
  15 imagePullSecrets              []LocalObjectReference     omitempty
  16 hostname                      string                     omitempty
  17 subdomain                     string                     omitempty
  18 affinity                      *Affinity                  omitempty
  19 schedulerName                 string                     omitempty
  22 tolerations                   []Toleration               omitempty
  23 hostAliases                   []HostAlias                omitempty
  24 priorityClassName             string                     omitempty
  25 priority                      *int32                     omitempty
  26 dnsConfig                     *PodDNSConfig              omitempty
  28 readinessGates                []PodReadinessGate         omitempty
  29 runtimeClassName              *string                    omitempty
  30 enableServiceLinks            *bool                      omitempty
  31 preemptionPolicy              *string                    omitempty
  32 overhead                      map[string]Quantity        omitempty
  33 topologySpreadConstraints     []TopologySpreadConstraint omitempty
  35 setHostnameAsFQDN             *bool                      omitempty
  36 os                            *PodOS                     omitempty
  37 hostUsers                     *bool                      omitempty
  38 schedulingGates               []PodSchedulingGate        omitempty
  39 resourceClaims                []PodResourceClaim         omitempty
  40 resources                     *ResourceRequirements      omitempty
  41 hostnameOverride              *string                    omitempty
  43 schedulingGroup               *PodSchedulingGroup        omitempty
message PodSecurityContext
   1 seLinuxOptions           *SELinuxOptions                omitempty
   8 windowsOptions           *WindowsSecurityContextOptions omitempty
   2 runAsUser                *int64                         omitempty
   6 runAsGroup               *int64                         omitempty
   3 runAsNonRoot             *bool                          omitempty
   4 supplementalGroups       []int64                        omitempty
  12 supplementalGroupsPolicy *string                        omitempty
   5 fsGroup                  *int64                         omitempty
   7 sysctls                  []Sysctl                       omitempty
   9 fsGroupChangePolicy      *string                        omitempty
  10 seccompProfile           *SeccompProfile                omitempty
  11 appArmorProfile          *AppArmorProfile               omitempty
  13 seLinuxChangePolicy      *string                        omitempty
message Affinity
   1 nodeAffinity    *NodeAffinity    omitempty
   2 podAffinity     *PodAffinity     omitempty
   3 podAntiAffinity *PodAntiAffinity omitempty
message Toleration
   1 key               string omitempty
   2 operator          string omitempty
   3 value             string omitempty
   4 effect            string omitempty
   5 tolerationSeconds *int64 omitempty
message HostAlias
   1 ip        string
   2 hostnames []string omitempty
message PodDNSConfig
   1 nameservers []string             omitempty
   2 searches    []string             omitempty
   3 options     []PodDNSConfigOption omitempty
message PodReadinessGate
   1 conditionType string
message TopologySpreadConstraint
   1 maxSkew            int32
   2 topologyKey        string
   3 whenUnsatisfiable  string
   4 labelSelector      *LabelSelector omitempty
   5 minDomains         *int32         omitempty
   6 nodeAffinityPolicy *string        omitempty
   7 nodeTaintsPolicy   *string        omitempty
   8 matchLabelKeys     []string       omitempty
message PodOS
   1 name string
message PodSchedulingGate
   1 name string
message PodResourceClaim
   1 name                      string
   3 resourceClaimName         *string omitempty
   4 resourceClaimTemplateName *string omitempty
message PodSchedulingGroup
   1 podGroupName *string omitempty
message Sysctl
   1 name  string
   2 value string
message NodeAffinity
   1 requiredDuringSchedulingIgnoredDuringExecution  *NodeSelector             omitempty
   2 preferredDuringSchedulingIgnoredDuringExecution []PreferredSchedulingTerm omitempty
message PodAffinity
   1 requiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         omitempty
   2 preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm omitempty
message PodAntiAffinity
   1 requiredDuringSchedulingIgnoredDuringExecution  []PodAffinityTerm         omitempty
   2 preferredDuringSchedulingIgnoredDuringExecution []WeightedPodAffinityTerm omitempty
message PodDNSConfigOption
   1 name  string  omitempty
   2 value *string omitempty
message NodeSelector
   1 nodeSelectorTerms []NodeSelectorTerm
message PreferredSchedulingTerm
   1 weight     int32
   2 preference NodeSelectorTerm
message PodAffinityTerm
   1 labelSelector     *LabelSelector omitempty
   2 namespaces        []string       omitempty
   3 topologyKey       string
   4 namespaceSelector *LabelSelector omitempty
   5 matchLabelKeys    []string       omitempty
   6 mismatchLabelKeys []string       omitempty
message WeightedPodAffinityTerm
   1 weight          int32
   2 podAffinityTerm PodAffinityTerm
message NodeSelectorTerm
   1 matchExpressions []NodeSelectorRequirement omitempty
   2 matchFields      []NodeSelectorRequirement omitempty
message NodeSelectorRequirement
   1 key      string
   2 operator string
   3 values   []string omitempty
"""
