"""Authorization reviews, authentication reviews and TokenRequest, and RBAC (the ``*.k8s.io/v1`` groups).

Field facts from k8s.io/api authorization/v1, authentication/v1 and rbac/v1 ``types.go`` at v0.36.3
(``protobuf:`` tag number, ``json:`` name and options, Go type), checked against ``generated.proto``.
Notation: ``schema.py``.
"""

SCHEMA = """
message SelfSubjectAccessReview
   1 metadata ObjectMeta                  omitempty
   2 spec     SelfSubjectAccessReviewSpec
   3 status   SubjectAccessReviewStatus   omitempty
message SelfSubjectRulesReview
   1 metadata ObjectMeta                 omitempty
   2 spec     SelfSubjectRulesReviewSpec
   3 status   SubjectRulesReviewStatus   omitempty
message SubjectAccessReview
   1 metadata ObjectMeta                omitempty
   2 spec     SubjectAccessReviewSpec
   3 status   SubjectAccessReviewStatus omitempty
message LocalSubjectAccessReview
   1 metadata ObjectMeta                omitempty
   2 spec     SubjectAccessReviewSpec
   3 status   SubjectAccessReviewStatus omitempty
message SelfSubjectReview
   1 metadata ObjectMeta              omitempty
   2 status   SelfSubjectReviewStatus omitempty
message TokenRequest
   1 metadata ObjectMeta         omitempty
   2 spec     TokenRequestSpec
   3 status   TokenRequestStatus omitempty
message TokenReview
   1 metadata ObjectMeta        omitempty
   2 spec     TokenReviewSpec
   3 status   TokenReviewStatus omitempty
message Role
   1 metadata ObjectMeta   omitempty
   2 rules    []PolicyRule
message RoleBinding
   1 metadata ObjectMeta omitempty
   2 subjects []Subject  omitempty
   3 roleRef  RoleRef
message ClusterRole
   1 metadata        ObjectMeta       omitempty
   2 rules           []PolicyRule
   3 aggregationRule *AggregationRule omitempty
message ClusterRoleBinding
   1 metadata ObjectMeta omitempty
   2 subjects []Subject  omitempty
   3 roleRef  RoleRef
message SelfSubjectAccessReviewSpec
   1 resourceAttributes    *ResourceAttributes    omitempty
   2 nonResourceAttributes *NonResourceAttributes omitempty
message SubjectAccessReviewStatus
   1 allowed         bool
   4 denied          bool   omitempty
   2 reason          string omitempty
   3 evaluationError string omitempty
message SelfSubjectRulesReviewSpec
   1 namespace string omitempty
message SubjectRulesReviewStatus
   1 resourceRules    []ResourceRule
   2 nonResourceRules []NonResourceRule
   3 incomplete       bool
   4 evaluationError  string            omitempty
message SubjectAccessReviewSpec
   1 resourceAttributes    *ResourceAttributes    omitempty
   2 nonResourceAttributes *NonResourceAttributes omitempty
   3 user                  string                 omitempty
   4 groups                []string               omitempty
   5 extra                 map[string][]string    omitempty
   6 uid                   string                 omitempty
message SelfSubjectReviewStatus
   1 userInfo UserInfo omitempty
message TokenRequestSpec
   1 audiences         []string
   4 expirationSeconds *int64
   3 boundObjectRef    *BoundObjectReference
message TokenRequestStatus
   1 token               string
   2 expirationTimestamp Time
message TokenReviewSpec
   1 token     string   omitempty
   2 audiences []string omitempty
message TokenReviewStatus
   1 authenticated bool     omitempty
   2 user          UserInfo omitempty
   4 audiences     []string omitempty
   3 error         string   omitempty
message PolicyRule
   1 verbs           []string
   2 apiGroups       []string omitempty
   3 resources       []string omitempty
   4 resourceNames   []string omitempty
   5 nonResourceURLs []string omitempty
message Subject
   1 kind      string
   2 apiGroup  string omitempty
   3 name      string
   4 namespace string omitempty
message RoleRef
   1 apiGroup string
   2 kind     string
   3 name     string
message AggregationRule
   1 clusterRoleSelectors []LabelSelector omitempty
message ResourceAttributes
   1 namespace     string                   omitempty
   2 verb          string                   omitempty
   3 group         string                   omitempty
   4 version       string                   omitempty
   5 resource      string                   omitempty
   6 subresource   string                   omitempty
   7 name          string                   omitempty
   8 fieldSelector *FieldSelectorAttributes omitempty
   9 labelSelector *LabelSelectorAttributes omitempty
message NonResourceAttributes
   1 path string omitempty
   2 verb string omitempty
message ResourceRule
   1 verbs         []string
   2 apiGroups     []string omitempty
   3 resources     []string omitempty
   4 resourceNames []string omitempty
message NonResourceRule
   1 verbs           []string
   2 nonResourceURLs []string omitempty
message UserInfo
   1 username string              omitempty
   2 uid      string              omitempty
   3 groups   []string            omitempty
   4 extra    map[string][]string omitempty
message BoundObjectReference
   1 kind       string omitempty
   2 apiVersion string omitempty
   3 name       string omitempty
   4 uid        string omitempty
message FieldSelectorAttributes
   1 rawSelector  string                     omitempty
   2 requirements []FieldSelectorRequirement omitempty
message LabelSelectorAttributes
   1 rawSelector  string                     omitempty
   2 requirements []LabelSelectorRequirement omitempty
"""
