{{/*
How the Tide services reach an external etcd that needs TLS or a password (values
`etcd.external.tls` and `etcd.external.auth`). The bundled etcd speaks plain text inside the
namespace and takes neither.
*/}}

{{- define "tide.etcdClientEnv" -}}
{{- $e := .Values.etcd.external }}
{{- if and (or $e.tls.existingSecret $e.auth.existingSecret) (not $e.endpoints) }}
{{- fail "etcd.external.tls and etcd.external.auth are for an external etcd: set etcd.external.endpoints too" }}
{{- end }}
{{- if $e.tls.existingSecret }}
{{- range $e.endpoints }}
{{- if not (hasPrefix "https://" .) }}
{{- fail (printf "etcd.external.tls.existingSecret needs https:// endpoints, got %s" .) }}
{{- end }}
{{- end }}
- name: TIDE_ETCD_CA_FILE
  value: {{ printf "/etc/tide/etcd-tls/%s" $e.tls.caKey | quote }}
{{- if $e.tls.certKey }}
- name: TIDE_ETCD_CERT_FILE
  value: {{ printf "/etc/tide/etcd-tls/%s" $e.tls.certKey | quote }}
- name: TIDE_ETCD_KEY_FILE
  value: {{ printf "/etc/tide/etcd-tls/%s" $e.tls.keyKey | quote }}
{{- end }}
{{- end }}
{{- if $e.auth.existingSecret }}
- name: TIDE_ETCD_USERNAME
  valueFrom:
    secretKeyRef:
      name: {{ $e.auth.existingSecret | quote }}
      key: {{ $e.auth.usernameKey | quote }}
- name: TIDE_ETCD_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $e.auth.existingSecret | quote }}
      key: {{ $e.auth.passwordKey | quote }}
{{- end }}
{{- end }}

{{- define "tide.etcdClientVolumeMount" -}}
{{- if .Values.etcd.external.tls.existingSecret }}
- name: etcd-tls
  mountPath: /etc/tide/etcd-tls
  readOnly: true
{{- end }}
{{- end }}

{{/* The files are re-read when the Secret changes (tlsRefreshIntervalMs), as the listener's are. */}}
{{- define "tide.etcdClientVolume" -}}
{{- if .Values.etcd.external.tls.existingSecret }}
- name: etcd-tls
  secret:
    secretName: {{ .Values.etcd.external.tls.existingSecret | quote }}
    defaultMode: 0440
{{- end }}
{{- end }}
