"""meta/v1 (k8s.io/apimachinery/pkg/apis/meta/v1): object metadata, selectors, conditions, delete options.

Field facts from k8s.io/apimachinery pkg/apis/meta/v1 ``types.go`` at v0.36.3 (``protobuf:`` tag number,
``json:`` name and options, Go type), checked against ``generated.proto``. Notation: ``schema.py``.
"""

SCHEMA = """
message ObjectMeta
   1 name                       string               omitempty
   2 generateName               string               omitempty
   3 namespace                  string               omitempty
   4 selfLink                   string               omitempty
   5 uid                        string               omitempty
   6 resourceVersion            string               omitempty
   7 generation                 int64                omitempty
   8 creationTimestamp          Time                 omitempty omitzero
   9 deletionTimestamp          *Time                omitempty
  10 deletionGracePeriodSeconds *int64               omitempty
  11 labels                     map[string]string    omitempty
  12 annotations                map[string]string    omitempty
  13 ownerReferences            []OwnerReference     omitempty
  14 finalizers                 []string             omitempty
  17 managedFields              []ManagedFieldsEntry omitempty
message DeleteOptions
   1 gracePeriodSeconds                               *int64         omitempty
   2 preconditions                                    *Preconditions omitempty
   3 orphanDependents                                 *bool          omitempty
   4 propagationPolicy                                *string        omitempty
   5 dryRun                                           []string       omitempty
   6 ignoreStoreReadErrorWithClusterBreakingPotential *bool          omitempty
message OwnerReference
   5 apiVersion         string
   1 kind               string
   3 name               string
   4 uid                string
   6 controller         *bool  omitempty
   7 blockOwnerDeletion *bool  omitempty
message ManagedFieldsEntry
   1 manager     string   omitempty
   2 operation   string   omitempty
   3 apiVersion  string   omitempty
   4 time        *Time    omitempty
   6 fieldsType  string   omitempty
   7 fieldsV1    *RawJSON omitempty
   8 subresource string   omitempty
message Condition
   1 type               string
   2 status             string
   3 observedGeneration int64  omitempty
   4 lastTransitionTime Time
   5 reason             string
   6 message            string
message LabelSelector
   1 matchLabels      map[string]string          omitempty
   2 matchExpressions []LabelSelectorRequirement omitempty
message Preconditions
   1 uid             *string omitempty
   2 resourceVersion *string omitempty
message LabelSelectorRequirement
   1 key      string
   2 operator string
   3 values   []string omitempty
message FieldSelectorRequirement
   1 key      string
   2 operator string
   3 values   []string omitempty
"""
