"""core/v1 objects: Namespace, ConfigMap, Secret, ServiceAccount, Service, ResourceQuota, Binding
(``pods/binding``, a scheduler's write) and references.

Field facts from k8s.io/api core/v1 ``types.go`` at v0.36.3 (``protobuf:`` tag number,
``json:`` name and options, Go type), checked against ``generated.proto``. Notation: ``schema.py``.
"""

SCHEMA = """
message Namespace
   1 metadata ObjectMeta      omitempty
   2 spec     NamespaceSpec   omitempty
   3 status   NamespaceStatus omitempty
message NamespaceSpec
   1 finalizers []string omitempty
message NamespaceStatus
   1 phase      string               omitempty
   2 conditions []NamespaceCondition omitempty
message NamespaceCondition
   1 type               string
   2 status             string
   4 lastTransitionTime Time   omitempty
   5 reason             string omitempty
   6 message            string omitempty
message ConfigMap
   1 metadata   ObjectMeta        omitempty
   4 immutable  *bool             omitempty
   2 data       map[string]string omitempty
   3 binaryData map[string]bytes  omitempty
message Secret
   1 metadata   ObjectMeta        omitempty
   5 immutable  *bool             omitempty
   2 data       map[string]bytes  omitempty
   4 stringData map[string]string omitempty
   3 type       string            omitempty
message ServiceAccount
   1 metadata                     ObjectMeta             omitempty
   2 secrets                      []ObjectReference      omitempty
   3 imagePullSecrets             []LocalObjectReference omitempty
   4 automountServiceAccountToken *bool                  omitempty
message Binding
   1 metadata ObjectMeta      omitempty
   2 target   ObjectReference
message ObjectReference
   1 kind            string omitempty
   2 namespace       string omitempty
   3 name            string omitempty
   4 uid             string omitempty
   5 apiVersion      string omitempty
   6 resourceVersion string omitempty
   7 fieldPath       string omitempty
message LocalObjectReference
   1 name string omitempty
message TypedLocalObjectReference
   1 apiGroup *string
   2 kind     string
   3 name     string
message TypedObjectReference
   1 apiGroup  *string
   2 kind      string
   3 name      string
   4 namespace *string omitempty
message Service
   1 metadata ObjectMeta    omitempty
   2 spec     ServiceSpec   omitempty
   3 status   ServiceStatus omitempty
message ServiceSpec
   1 ports                         []ServicePort          omitempty
   2 selector                      map[string]string      omitempty
   3 clusterIP                     string                 omitempty
  18 clusterIPs                    []string               omitempty
   4 type                          string                 omitempty
   5 externalIPs                   []string               omitempty
   7 sessionAffinity               string                 omitempty
   8 loadBalancerIP                string                 omitempty
   9 loadBalancerSourceRanges      []string               omitempty
  10 externalName                  string                 omitempty
  11 externalTrafficPolicy         string                 omitempty
  12 healthCheckNodePort           int32                  omitempty
  13 publishNotReadyAddresses      bool                   omitempty
  14 sessionAffinityConfig         *SessionAffinityConfig omitempty
  19 ipFamilies                    []string               omitempty
  17 ipFamilyPolicy                *string                omitempty
  20 allocateLoadBalancerNodePorts *bool                  omitempty
  21 loadBalancerClass             *string                omitempty
  22 internalTrafficPolicy         *string                omitempty
  23 trafficDistribution           *string                omitempty
message ServicePort
   1 name        string      omitempty
   2 protocol    string      omitempty
   6 appProtocol *string     omitempty
   3 port        int32
   4 targetPort  IntOrString omitempty
   5 nodePort    int32       omitempty
message SessionAffinityConfig
   1 clientIP *ClientIPConfig omitempty
message ClientIPConfig
   1 timeoutSeconds *int32 omitempty
message ServiceStatus
   1 loadBalancer LoadBalancerStatus omitempty
   2 conditions   []Condition        omitempty
message LoadBalancerStatus
   1 ingress []LoadBalancerIngress omitempty
message LoadBalancerIngress
   1 ip       string       omitempty
   2 hostname string       omitempty
   3 ipMode   *string      omitempty
   4 ports    []PortStatus omitempty
message PortStatus
   1 port     int32
   2 protocol string
   3 error    *string omitempty
message ResourceQuota
   1 metadata ObjectMeta          omitempty
   2 spec     ResourceQuotaSpec   omitempty
   3 status   ResourceQuotaStatus omitempty
message ResourceQuotaSpec
   1 hard          map[string]Quantity omitempty
   2 scopes        []string            omitempty
   3 scopeSelector *ScopeSelector      omitempty
message ScopeSelector
   1 matchExpressions []ScopedResourceSelectorRequirement omitempty
message ScopedResourceSelectorRequirement
   1 scopeName string
   2 operator  string
   3 values    []string omitempty
message ResourceQuotaStatus
   1 hard map[string]Quantity omitempty
   2 used map[string]Quantity omitempty
"""
