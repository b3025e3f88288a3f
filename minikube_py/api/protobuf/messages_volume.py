"""core/v1 Volume and every VolumeSource, projections and the ephemeral PVC template.

Field facts from k8s.io/api core/v1 ``types.go`` at v0.36.3 (``protobuf:`` tag number,
``json:`` name and options, Go type), checked against ``generated.proto``. Notation: ``schema.py``.
"""

SCHEMA = """
message Volume
   1 name         string
   2 volumeSource VolumeSource inline
message VolumeSource
   1 hostPath              *HostPathVolumeSource              omitempty
   2 emptyDir              *EmptyDirVolumeSource              omitempty
   3 gcePersistentDisk     *GCEPersistentDiskVolumeSource     omitempty
   4 awsElasticBlockStore  *AWSElasticBlockStoreVolumeSource  omitempty
   5 gitRepo               *GitRepoVolumeSource               omitempty
   6 secret                *SecretVolumeSource                omitempty
   7 nfs                   *NFSVolumeSource                   omitempty
   8 iscsi                 *ISCSIVolumeSource                 omitempty
   9 glusterfs             *GlusterfsVolumeSource             omitempty
  10 persistentVolumeClaim *PersistentVolumeClaimVolumeSource omitempty
  11 rbd                   *RBDVolumeSource                   omitempty
  12 flexVolume            *FlexVolumeSource                  omitempty
  13 cinder                *CinderVolumeSource                omitempty
  14 cephfs                *CephFSVolumeSource                omitempty
  15 flocker               *FlockerVolumeSource               omitempty
  16 downwardAPI           *DownwardAPIVolumeSource           omitempty
  17 fc                    *FCVolumeSource                    omitempty
  18 azureFile             *AzureFileVolumeSource             omitempty
  19 configMap             *ConfigMapVolumeSource             omitempty
  20 vsphereVolume         *VsphereVirtualDiskVolumeSource    omitempty
  21 quobyte               *QuobyteVolumeSource               omitempty
  22 azureDisk             *AzureDiskVolumeSource             omitempty
  23 photonPersistentDisk  *PhotonPersistentDiskVolumeSource  omitempty
  26 projected             *ProjectedVolumeSource             omitempty
  24 portworxVolume        *PortworxVolumeSource              omitempty
  25 scaleIO               *ScaleIOVolumeSource               omitempty
  27 storageos             *StorageOSVolumeSource             omitempty
  28 csi                   *CSIVolumeSource                   omitempty
  29 ephemeral             *EphemeralVolumeSource             omitempty
  30 image                 *ImageVolumeSource                 omitempty
message HostPathVolumeSource
   1 path string
   2 type *string omitempty
message EmptyDirVolumeSource
   1 medium    string    omitempty
   2 sizeLimit *Quantity omitempty
message GCEPersistentDiskVolumeSource
   1 pdName    string
   2 fsType    string omitempty
   3 partition int32  omitempty
   4 readOnly  bool   omitempty
message AWSElasticBlockStoreVolumeSource
   1 volumeID  string
   2 fsType    string omitempty
   3 partition int32  omitempty
   4 readOnly  bool   omitempty
message GitRepoVolumeSource
   1 repository string
   2 revision   string omitempty
   3 directory  string omitempty
message SecretVolumeSource
   1 secretName  string      omitempty
   2 items       []KeyToPath omitempty
   3 defaultMode *int32      omitempty
   4 optional    *bool       omitempty
message NFSVolumeSource
   1 server   string
   2 path     string
   3 readOnly bool   omitempty
message ISCSIVolumeSource
   1 targetPortal      string
   2 iqn               string
   3 lun               int32
   4 iscsiInterface    string                omitempty
   5 fsType            string                omitempty
   6 readOnly          bool                  omitempty
   7 portals           []string              omitempty
   8 chapAuthDiscovery bool                  omitempty
  11 chapAuthSession   bool                  omitempty
  10 secretRef         *LocalObjectReference omitempty
  12 initiatorName     *string               omitempty
message GlusterfsVolumeSource
   1 endpoints string
   2 path      string
   3 readOnly  bool   omitempty
message PersistentVolumeClaimVolumeSource
   1 claimName string
   2 readOnly  bool   omitempty
message RBDVolumeSource
   1 monitors  []string
   2 image     string
   3 fsType    string                omitempty
   4 pool      string                omitempty
   5 user      string                omitempty
   6 keyring   string                omitempty
   7 secretRef *LocalObjectReference omitempty
   8 readOnly  bool                  omitempty
message FlexVolumeSource
   1 driver    string
   2 fsType    string                omitempty
   3 secretRef *LocalObjectReference omitempty
   4 readOnly  bool                  omitempty
   5 options   map[string]string     omitempty
message CinderVolumeSource
   1 volumeID  string
   2 fsType    string                omitempty
   3 readOnly  bool                  omitempty
   4 secretRef *LocalObjectReference omitempty
message CephFSVolumeSource
   1 monitors   []string
   2 path       string                omitempty
   3 user       string                omitempty
   4 secretFile string                omitempty
   5 secretRef  *LocalObjectReference omitempty
   6 readOnly   bool                  omitempty
message FlockerVolumeSource
   1 datasetName string omitempty
   2 datasetUUID string omitempty
message DownwardAPIVolumeSource
   1 items       []DownwardAPIVolumeFile omitempty
   2 defaultMode *int32                  omitempty
message FCVolumeSource
   1 targetWWNs []string omitempty
   2 lun        *int32   omitempty
   3 fsType     string   omitempty
   4 readOnly   bool     omitempty
   5 wwids      []string omitempty
message AzureFileVolumeSource
   1 secretName string
   2 shareName  string
   3 readOnly   bool   omitempty
message ConfigMapVolumeSource
   1 localObjectReference LocalObjectReference inline
   2 items                []KeyToPath          omitempty
   3 defaultMode          *int32               omitempty
   4 optional             *bool                omitempty
message VsphereVirtualDiskVolumeSource
   1 volumePath        string
   2 fsType            string omitempty
   3 storagePolicyName string omitempty
   4 storagePolicyID   string omitempty
message QuobyteVolumeSource
   1 registry string
   2 volume   string
   3 readOnly bool   omitempty
   4 user     string omitempty
   5 group    string omitempty
   6 tenant   string omitempty
message AzureDiskVolumeSource
   1 diskName    string
   2 diskURI     string
   3 cachingMode *string omitempty
   4 fsType      *string omitempty
   5 readOnly    *bool   omitempty
   6 kind        *string omitempty
message PhotonPersistentDiskVolumeSource
   1 pdID   string
   2 fsType string omitempty
message ProjectedVolumeSource
   1 sources     []VolumeProjection
   2 defaultMode *int32             omitempty
message PortworxVolumeSource
   1 volumeID string
   2 fsType   string omitempty
   3 readOnly bool   omitempty
message ScaleIOVolumeSource
   1 gateway          string
   2 system           string
   3 secretRef        *LocalObjectReference
   4 sslEnabled       bool                  omitempty
   5 protectionDomain string                omitempty
   6 storagePool      string                omitempty
   7 storageMode      string                omitempty
   8 volumeName       string                omitempty
   9 fsType           string                omitempty
  10 readOnly         bool                  omitempty
message StorageOSVolumeSource
   1 volumeName      string                omitempty
   2 volumeNamespace string                omitempty
   3 fsType          string                omitempty
   4 readOnly        bool                  omitempty
   5 secretRef       *LocalObjectReference omitempty
message CSIVolumeSource
   1 driver               string
   2 readOnly             *bool                 omitempty
   3 fsType               *string               omitempty
   4 volumeAttributes     map[string]string     omitempty
   5 nodePublishSecretRef *LocalObjectReference omitempty
message EphemeralVolumeSource
   1 volumeClaimTemplate *PersistentVolumeClaimTemplate omitempty
message ImageVolumeSource
   1 reference  string omitempty
   2 pullPolicy string omitempty
message KeyToPath
   1 key  string
   2 path string
   3 mode *int32 omitempty
message DownwardAPIVolumeFile
   1 path             string
   2 fieldRef         *ObjectFieldSelector   omitempty
   3 resourceFieldRef *ResourceFieldSelector omitempty
   4 mode             *int32                 omitempty
message VolumeProjection
   1 secret              *SecretProjection              omitempty
   2 downwardAPI         *DownwardAPIProjection         omitempty
   3 configMap           *ConfigMapProjection           omitempty
   4 serviceAccountToken *ServiceAccountTokenProjection omitempty
   5 clusterTrustBundle  *ClusterTrustBundleProjection  omitempty
   6 podCertificate      *PodCertificateProjection      omitempty
message PersistentVolumeClaimTemplate
   1 metadata ObjectMeta                omitempty
   2 spec     PersistentVolumeClaimSpec
message SecretProjection
   1 localObjectReference LocalObjectReference inline
   2 items                []KeyToPath          omitempty
   4 optional             *bool                omitempty
message DownwardAPIProjection
   1 items []DownwardAPIVolumeFile omitempty
message ConfigMapProjection
   1 localObjectReference LocalObjectReference inline
   2 items                []KeyToPath          omitempty
   4 optional             *bool                omitempty
message ServiceAccountTokenProjection
   1 audience          string omitempty
   2 expirationSeconds *int64 omitempty
   3 path              string
message ClusterTrustBundleProjection
   1 name          *string        omitempty
   2 signerName    *string        omitempty
   3 labelSelector *LabelSelector omitempty
   5 optional      *bool          omitempty
   4 path          string
message PodCertificateProjection
   1 signerName           string            omitempty
   2 keyType              string            omitempty
   3 maxExpirationSeconds *int32            omitempty
   4 credentialBundlePath string            omitempty
   5 keyPath              string            omitempty
   6 certificateChainPath string            omitempty
   7 userAnnotations      map[string]string omitempty
message PersistentVolumeClaimSpec
   1 accessModes               []string                   omitempty
   4 selector                  *LabelSelector             omitempty
   2 resources                 VolumeResourceRequirements omitempty
   3 volumeName                string                     omitempty
   5 storageClassName          *string                    omitempty
   6 volumeMode                *string                    omitempty
   7 dataSource                *TypedLocalObjectReference omitempty
   8 dataSourceRef             *TypedObjectReference      omitempty
   9 volumeAttributesClassName *string                    omitempty
message VolumeResourceRequirements
   1 limits   map[string]Quantity omitempty
   2 requests map[string]Quantity omitempty
"""
