{{/*
TLS for every Tide listener and every call between Tide services (values `tls`). One certificate
serves all roles: its names cover the client Service, each broker's advertised name and the
headless Services; controllers and coordinators advertise pod IPs, so every service checks peers
against one fixed name (tlsServerName) that the certificate carries.
*/}}

{{/* The Secret holding tls.crt, tls.key and ca.crt. */}}
{{- define "tide.tlsSecretName" -}}
{{- if .Values.tls.existingSecret }}
{{- .Values.tls.existingSecret }}
{{- else }}
{{- printf "%s-tls" (include "tide.fullname" .) }}
{{- end }}
{{- end }}

{{/* The name every service expects in its peers' certificates: the client Service's. */}}
{{- define "tide.tlsServerName" -}}
{{- printf "%s.%s.svc" (include "tide.fullname" .) .Release.Namespace }}
{{- end }}

{{/* DNS names of the certificate (cert-manager). */}}
{{- define "tide.tlsDnsNames" -}}
{{- $ns := .Release.Namespace }}
{{- $domain := .Values.clusterDomain }}
{{- $full := include "tide.fullname" . }}
{{- $names := list $full (printf "%s.%s" $full $ns) (printf "%s.%s.svc" $full $ns) (printf "%s.%s.svc.%s" $full $ns $domain) }}
{{- range $role := list "broker" "controller" "coordinator" }}
{{- $headless := include "tide.headlessName" (dict "ctx" $ "role" $role) }}
{{- $names = append $names (printf "*.%s.%s.svc" $headless $ns) }}
{{- $names = append $names (printf "*.%s.%s.svc.%s" $headless $ns $domain) }}
{{- end }}
{{- $names = append $names "localhost" }}
{{- range .Values.tls.certManager.extraDnsNames }}
{{- $names = append $names . }}
{{- end }}
{{- toYaml $names }}
{{- end }}

{{/* TLS env of a Tide container, when TLS is on. */}}
{{- define "tide.tlsEnv" -}}
{{- if .Values.tls.enabled }}
- name: TIDE_TLS_CERT_FILE
  value: /etc/tide/tls/tls.crt
- name: TIDE_TLS_KEY_FILE
  value: /etc/tide/tls/tls.key
- name: TIDE_TLS_CA_FILE
  value: /etc/tide/tls/ca.crt
- name: TIDE_TLS_CLIENT_AUTH
  value: {{ .Values.tls.clientAuth | quote }}
- name: TIDE_TLS_SERVER_NAME
  value: {{ include "tide.tlsServerName" . | quote }}
- name: TIDE_HEALTH_PORT
  value: {{ include "tide.scalar" .Values.tls.probePort | quote }}
{{- end }}
{{- end }}

{{/* The certificate's volume mount, when TLS is on. */}}
{{- define "tide.tlsVolumeMount" -}}
{{- if .Values.tls.enabled }}
- name: tls
  mountPath: /etc/tide/tls
  readOnly: true
{{- end }}
{{- end }}

{{/* The certificate's volume; kubelet refreshes it when cert-manager renews the Secret. */}}
{{- define "tide.tlsVolume" -}}
{{- if .Values.tls.enabled }}
- name: tls
  secret:
    secretName: {{ include "tide.tlsSecretName" . }}
    defaultMode: 0440
{{- end }}
{{- end }}

{{/*
The port the kubelet probes: with TLS on, the plain-text health-only listener (the kubelet's gRPC
probe cannot speak TLS); otherwise the service port. Argument: (dict "ctx" $ "port" 9092).
*/}}
{{- define "tide.probePort" -}}
{{- if .ctx.Values.tls.enabled }}{{ include "tide.scalar" .ctx.Values.tls.probePort }}{{ else }}{{ include "tide.scalar" .port }}{{ end }}
{{- end }}
