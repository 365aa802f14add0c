{{/*
Names, labels and the pieces every Tide workload shares. Roles: etcd, broker, controller,
coordinator (app.kubernetes.io/component).
*/}}

{{- define "tide.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* "<release>-tide", or the release name when it already contains the chart name. */}}
{{- define "tide.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of a role's objects: "<fullname>-<role>". Argument: (dict "ctx" $ "role" "broker"). */}}
{{- define "tide.roleName" -}}
{{- printf "%s-%s" (include "tide.fullname" .ctx | trunc 50 | trimSuffix "-") .role }}
{{- end }}

{{/* Headless Service of a role (stable pod DNS names for StatefulSets). */}}
{{- define "tide.headlessName" -}}
{{- printf "%s-headless" (include "tide.roleName" .) }}
{{- end }}

{{- define "tide.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels of a role. Argument: (dict "ctx" $ "role" "broker"). */}}
{{- define "tide.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tide.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .role }}
{{- end }}

{{/* All labels of a role's objects. Argument: (dict "ctx" $ "role" "broker"). */}}
{{- define "tide.labels" -}}
helm.sh/chart: {{ include "tide.chart" .ctx }}
{{ include "tide.selectorLabels" . }}
app.kubernetes.io/part-of: tide
app.kubernetes.io/version: {{ .ctx.Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .ctx.Release.Service }}
{{- end }}

{{- define "tide.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{- define "tide.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "tide.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* etcd client URLs, comma-separated: etcd.external.endpoints, or every bundled member by its stable DNS name. */}}
{{- define "tide.etcdEndpoints" -}}
{{- if .Values.etcd.external.endpoints }}
{{- join "," .Values.etcd.external.endpoints }}
{{- else }}
{{- $ctx := dict "ctx" . "role" "etcd" }}
{{- $name := include "tide.roleName" $ctx }}
{{- $headless := include "tide.headlessName" $ctx }}
{{- $urls := list }}
{{- range $i := until (int .Values.etcd.replicas) }}
{{- $urls = append $urls (printf "http://%s-%d.%s.%s.svc.%s:2379" $name $i $headless $.Release.Namespace $.Values.clusterDomain) }}
{{- end }}
{{- join "," $urls }}
{{- end }}
{{- end }}

{{/* A number from values (YAML numbers arrive as float64) without exponent notation. */}}
{{- define "tide.scalar" -}}
{{- if kindIs "float64" . }}{{ int64 . }}{{ else }}{{ . }}{{ end }}
{{- end }}

{{/*
A role's `config` map as TIDE_* environment variables: key camelCase -> TIDE_SNAKE_CASE, as
services/common/config.ts envNameOf does (the chart tests check every schema key).
*/}}
{{- define "tide.configEnv" -}}
{{- range $key, $value := . }}
- name: {{ printf "TIDE_%s" ($key | snakecase | upper) }}
  value: {{ include "tide.scalar" $value | quote }}
{{- end }}
{{- end }}

{{/* Environment every Tide service gets: its pod name and namespace, cluster name, log level. */}}
{{- define "tide.commonEnv" -}}
- name: POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: POD_NAMESPACE
  valueFrom:
    fieldRef:
      fieldPath: metadata.namespace
- name: TIDE_CLUSTER_NAME
  value: {{ .Values.clusterName | quote }}
- name: TIDE_LOG_LEVEL
  value: {{ .Values.logLevel | quote }}
{{- end }}

{{/*
gRPC probes on grpc.health.v1.Health. Argument: (dict "port" 9092 "startup" "svc" "ready" "svc"
"live" "svc" "startupFailures" 60). Startup allows slow log recovery; liveness only restarts a
process that stopped answering.
*/}}
{{- define "tide.grpcProbes" -}}
startupProbe:
  grpc:
    port: {{ include "tide.scalar" .port }}
    service: {{ .startup | quote }}
  periodSeconds: 5
  timeoutSeconds: 3
  failureThreshold: {{ .startupFailures }}
readinessProbe:
  grpc:
    port: {{ include "tide.scalar" .port }}
    service: {{ .ready | quote }}
  periodSeconds: 10
  timeoutSeconds: 3
  failureThreshold: 3
livenessProbe:
  grpc:
    port: {{ include "tide.scalar" .port }}
    service: {{ .live | quote }}
  periodSeconds: 10
  timeoutSeconds: 5
  failureThreshold: 6
{{- end }}

{{/* The metrics container port, when metrics are on. */}}
{{- define "tide.metricsPort" -}}
{{- if .Values.metrics.enabled }}
- name: metrics
  containerPort: {{ include "tide.scalar" .Values.metrics.port }}
  protocol: TCP
{{- end }}
{{- end }}

{{/*
Metrics env, when metrics are on. Seam for the Prometheus work: the services are expected to take
the metrics port as config key metricsPort (TIDE_METRICS_PORT); until they do, keep metrics off.
*/}}
{{- define "tide.metricsEnv" -}}
{{- if .Values.metrics.enabled }}
- name: TIDE_METRICS_PORT
  value: {{ include "tide.scalar" .Values.metrics.port | quote }}
{{- end }}
{{- end }}

{{/*
Scheduling of a role: its nodeSelector, tolerations and affinity; without an affinity, a soft
anti-affinity spreads the role's pods over nodes. Argument: (dict "ctx" $ "role" "broker" "values" .Values.broker).
*/}}
{{- define "tide.scheduling" -}}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
affinity:
{{- if .values.affinity }}
  {{- toYaml .values.affinity | nindent 2 }}
{{- else }}
  podAntiAffinity:
    preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          topologyKey: kubernetes.io/hostname
          labelSelector:
            matchLabels:
              {{- include "tide.selectorLabels" (dict "ctx" .ctx "role" .role) | nindent 14 }}
{{- end }}
{{- end }}

{{/* Pod-level settings every Tide pod shares. */}}
{{- define "tide.podCommon" -}}
serviceAccountName: {{ include "tide.serviceAccountName" . }}
automountServiceAccountToken: false
enableServiceLinks: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml .Values.podSecurityContext | nindent 2 }}
{{- end }}

{{/* A PodDisruptionBudget. Argument: (dict "ctx" $ "role" "broker" "pdb" .Values.broker.pdb). */}}
{{- define "tide.pdb" -}}
{{- if .pdb.enabled }}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "tide.roleName" . }}
  namespace: {{ .ctx.Release.Namespace }}
  labels:
    {{- include "tide.labels" . | nindent 4 }}
spec:
  maxUnavailable: {{ include "tide.scalar" .pdb.maxUnavailable }}
  selector:
    matchLabels:
      {{- include "tide.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}
