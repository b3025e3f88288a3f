"""core/v1 Container: ports, env, resources, probes, lifecycle hooks and security context.

Field facts from k8s.io/api core/v1 ``types.go`` at v0.36.3 (``protobuf:`` tag number,
``json:`` name and options, Go type), checked against ``generated.proto``. Notation: ``schema.py``.
"""

SCHEMA = """
message Container
   1 name                     string
   2 image                    string                  omitempty
   3 command                  []string                omitempty
   4 args                     []string                omitempty
   5 workingDir               string                  omitempty
   6 ports                    []ContainerPort         omitempty
  19 envFrom                  []EnvFromSource         omitempty
   7 env                      []EnvVar                omitempty
   8 resources                ResourceRequirements    omitempty
  23 resizePolicy             []ContainerResizePolicy omitempty
  24 restartPolicy            *string                 omitempty
  25 restartPolicyRules       []ContainerRestartRule  omitempty
   9 volumeMounts             []VolumeMount           omitempty
  21 volumeDevices            []VolumeDevice          omitempty
  10 livenessProbe            *Probe                  omitempty
  11 readinessProbe           *Probe                  omitempty
  22 startupProbe             *Probe                  omitempty
  12 lifecycle                *Lifecycle              omitempty
  13 terminationMessagePath   string                  omitempty
  20 terminationMessagePolicy string                  omitempty
  14 imagePullPolicy          string                  omitempty
  15 securityContext          *SecurityContext        omitempty
  16 stdin                    bool                    omitempty
  17 stdinOnce                bool                    omitempty
  18 tty                      bool                    omitempty
message EphemeralContainerCommon = Container
message EphemeralContainer
   1 ephemeralContainerCommon EphemeralContainerCommon inline
   2 targetContainerName      string                   omitempty
message ContainerPort
   1 name          string omitempty
   2 hostPort      int32  omitempty
   3 containerPort int32
   4 protocol      string omitempty
   5 hostIP        string omitempty
message EnvFromSource
   1 prefix       string              omitempty
   2 configMapRef *ConfigMapEnvSource omitempty
   3 secretRef    *SecretEnvSource    omitempty
message ConfigMapEnvSource
   1 localObjectReference LocalObjectReference inline
   2 optional             *bool                omitempty
message SecretEnvSource
   1 localObjectReference LocalObjectReference inline
   2 optional             *bool                omitempty
message EnvVar
   1 name      string
   2 value     string        omitempty
   3 valueFrom *EnvVarSource omitempty
message EnvVarSource
   1 fieldRef         *ObjectFieldSelector   omitempty
   2 resourceFieldRef *ResourceFieldSelector omitempty
   3 configMapKeyRef  *ConfigMapKeySelector  omitempty
   4 secretKeyRef     *SecretKeySelector     omitempty
   5 fileKeyRef       *FileKeySelector       omitempty
message ObjectFieldSelector
   1 apiVersion string omitempty
   2 fieldPath  string
message ResourceFieldSelector
   1 containerName string   omitempty
   2 resource      string
   3 divisor       Quantity omitempty
message ConfigMapKeySelector
   1 localObjectReference LocalObjectReference inline
   2 key                  string
   3 optional             *bool                omitempty
message SecretKeySelector
   1 localObjectReference LocalObjectReference inline
   2 key                  string
   3 optional             *bool                omitempty
message FileKeySelector
   1 volumeName string
   2 path       string
   3 key        string
   4 optional   *bool  omitempty
message ResourceRequirements
   1 limits   map[string]Quantity omitempty
   2 requests map[string]Quantity omitempty
   3 claims   []ResourceClaim     omitempty
message ResourceClaim
   1 name    string
   2 request string omitempty
message ContainerResizePolicy
   1 resourceName  string
   2 restartPolicy string
message ContainerRestartRule
   1 action    string                           omitempty
   2 exitCodes *ContainerRestartRuleOnExitCodes omitempty
message ContainerRestartRuleOnExitCodes
   1 operator string  omitempty
   2 values   []int32 omitempty
message VolumeMount
   1 name              string
   2 readOnly          bool    omitempty
   7 recursiveReadOnly *string omitempty
   3 mountPath         string
   4 subPath           string  omitempty
   5 mountPropagation  *string omitempty
   6 subPathExpr       string  omitempty
message VolumeDevice
   1 name       string
   2 devicePath string
message Probe
   1 handler                       ProbeHandler inline
   2 initialDelaySeconds           int32        omitempty
   3 timeoutSeconds                int32        omitempty
   4 periodSeconds                 int32        omitempty
   5 successThreshold              int32        omitempty
   6 failureThreshold              int32        omitempty
   7 terminationGracePeriodSeconds *int64       omitempty
message ProbeHandler
   1 exec      *ExecAction      omitempty
   2 httpGet   *HTTPGetAction   omitempty
   3 tcpSocket *TCPSocketAction omitempty
   4 grpc      *GRPCAction      omitempty
message ExecAction
   1 command []string omitempty
message HTTPGetAction
   1 path        string       omitempty
   2 port        IntOrString
   3 host        string       omitempty
   4 scheme      string       omitempty
   5 httpHeaders []HTTPHeader omitempty
message HTTPHeader
   1 name  string
   2 value string
message TCPSocketAction
   1 port IntOrString
   2 host string      omitempty
message GRPCAction
   1 port    int32
   2 service *string
message Lifecycle
   1 postStart  *LifecycleHandler omitempty
   2 preStop    *LifecycleHandler omitempty
   3 stopSignal *string           omitempty
message LifecycleHandler
   1 exec      *ExecAction      omitempty
   2 httpGet   *HTTPGetAction   omitempty
   3 tcpSocket *TCPSocketAction omitempty
   4 sleep     *SleepAction     omitempty
message SleepAction
   1 seconds int64
message SecurityContext
   1 capabilities             *Capabilities                  omitempty
   2 privileged               *bool                          omitempty
   3 seLinuxOptions           *SELinuxOptions                omitempty
  10 windowsOptions           *WindowsSecurityContextOptions omitempty
   4 runAsUser                *int64                         omitempty
   8 runAsGroup               *int64                         omitempty
   5 runAsNonRoot             *bool                          omitempty
   6 readOnlyRootFilesystem   *bool                          omitempty
   7 allowPrivilegeEscalation *bool                          omitempty
   9 procMount                *string                        omitempty
  11 seccompProfile           *SeccompProfile                omitempty
  12 appArmorProfile          *AppArmorProfile               omitempty
message Capabilities
   1 add  []string omitempty
   2 drop []string omitempty
message SELinuxOptions
   1 user  string omitempty
   2 role  string omitempty
   3 type  string omitempty
   4 level string omitempty
message WindowsSecurityContextOptions
   1 gmsaCredentialSpecName *string omitempty
   2 gmsaCredentialSpec     *string omitempty
   3 runAsUserName          *string omitempty
   4 hostProcess            *bool   omitempty
message SeccompProfile
   1 type             string
   2 localhostProfile *string omitempty
message AppArmorProfile
   1 type             string
   2 localhostProfile *string omitempty
"""
