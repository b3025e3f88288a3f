"""policy/v1 PodDisruptionBudget and Eviction, scheduling/v1 PriorityClass, networking/v1 Ingress,
autoscaling/v1 Scale (the ``scale`` subresource of deployments, replica sets and stateful sets).

Field facts from k8s.io/api policy/v1, scheduling/v1, networking/v1 and autoscaling/v1 ``types.go`` at v0.36.3
(``protobuf:`` tag number, ``json:`` name and options, Go type), checked against ``generated.proto``.
Notation: ``schema.py``.
"""

SCHEMA = """
message PodDisruptionBudget
   1 metadata ObjectMeta                omitempty
   2 spec     PodDisruptionBudgetSpec   omitempty
   3 status   PodDisruptionBudgetStatus omitempty
message Eviction
   1 metadata      ObjectMeta     omitempty
   2 deleteOptions *DeleteOptions omitempty
message Scale
   1 metadata ObjectMeta  omitempty
   2 spec     ScaleSpec   omitempty
   3 status   ScaleStatus omitempty
message ScaleSpec
   1 replicas int32 omitempty
message ScaleStatus
   1 replicas int32
   2 selector string omitempty
message PriorityClass
   1 metadata         ObjectMeta omitempty
   2 value            int32
   3 globalDefault    bool       omitempty
   4 description      string     omitempty
   5 preemptionPolicy *string    omitempty
message Ingress
   1 metadata ObjectMeta    omitempty
   2 spec     IngressSpec   omitempty
   3 status   IngressStatus omitempty
message PodDisruptionBudgetSpec
   1 minAvailable               *IntOrString   omitempty
   2 selector                   *LabelSelector omitempty
   3 maxUnavailable             *IntOrString   omitempty
   4 unhealthyPodEvictionPolicy *string        omitempty
message PodDisruptionBudgetStatus
   1 observedGeneration int64           omitempty
   2 disruptedPods      map[string]Time omitempty
   3 disruptionsAllowed int32
   4 currentHealthy     int32
   5 desiredHealthy     int32
   6 expectedPods       int32
   7 conditions         []Condition     omitempty
message IngressSpec
   4 ingressClassName *string         omitempty
   1 defaultBackend   *IngressBackend omitempty
   2 tls              []IngressTLS    omitempty
   3 rules            []IngressRule   omitempty
message IngressStatus
   1 loadBalancer IngressLoadBalancerStatus omitempty
message IngressBackend
   4 service  *IngressServiceBackend     omitempty
   3 resource *TypedLocalObjectReference omitempty
message IngressTLS
   1 hosts      []string omitempty
   2 secretName string   omitempty
message IngressRule
   1 host             string           omitempty
   2 ingressRuleValue IngressRuleValue inline
message IngressLoadBalancerStatus
   1 ingress []IngressLoadBalancerIngress omitempty
message IngressServiceBackend
   1 name string
   2 port ServiceBackendPort omitempty
message IngressRuleValue
   1 http *HTTPIngressRuleValue omitempty
message IngressLoadBalancerIngress
   1 ip       string              omitempty
   2 hostname string              omitempty
   4 ports    []IngressPortStatus omitempty
message ServiceBackendPort
   1 name   string omitempty
   2 number int32  omitempty
message HTTPIngressRuleValue
   1 paths []HTTPIngressPath
message IngressPortStatus
   1 port     int32
   2 protocol string
   3 error    *string omitempty
message HTTPIngressPath
   1 path     string         omitempty
   3 pathType *string
   2 backend  IngressBackend
"""
