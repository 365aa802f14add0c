{{/*
Authentication, authorization and quotas of every Tide service (values `auth`; docs/security.md).
Files come from Secrets/ConfigMaps mounted under /etc/tide/auth; with auth.serviceAccountToken on,
every Tide pod also gets a projected service-account token that it presents to the other services,
and the pods' own service-account principal is added to the internal principals.
*/}}

{{/* The principal of Tide's own pods when they authenticate by service-account token. */}}
{{- define "tide.serviceAccountPrincipal" -}}
{{- printf "system:serviceaccount:%s:%s" .Release.Namespace (include "tide.serviceAccountName" .) }}
{{- end }}

{{- define "tide.internalPrincipals" -}}
{{- $p := .Values.auth.internalPrincipals }}
{{- if .Values.auth.serviceAccountToken.enabled }}
{{- $p = append $p (include "tide.serviceAccountPrincipal" .) }}
{{- end }}
{{- join "," $p }}
{{- end }}

{{/* True when any authentication mechanism is on. */}}
{{- define "tide.authOn" -}}
{{- if or .Values.auth.mtls.enabled .Values.auth.staticTokens.existingSecret .Values.auth.jwt.jwksConfigMap .Values.auth.jwt.jwksSecret }}true{{- end }}
{{- end }}

{{- define "tide.authEnv" -}}
{{- $a := .Values.auth }}
{{- if and (or $a.mtls.enabled (include "tide.authOn" .) (ne $a.authorization "none")) (not .Values.tls.enabled) }}
{{- fail "auth needs tls.enabled: Tide never takes credentials in plain text (docs/security.md)" }}
{{- end }}
{{- if and $a.mtls.enabled (eq .Values.tls.clientAuth "none") }}
{{- fail "auth.mtls.enabled needs tls.clientAuth request or require" }}
{{- end }}
{{- if and $a.jwt.jwksConfigMap $a.jwt.jwksSecret }}
{{- fail "give auth.jwt.jwksConfigMap or auth.jwt.jwksSecret, not both" }}
{{- end }}
{{- if and (or $a.jwt.jwksConfigMap $a.jwt.jwksSecret) (or (not $a.jwt.issuer) (not $a.jwt.audience)) }}
{{- fail "JWT authentication (auth.jwt.jwksConfigMap/jwksSecret) needs auth.jwt.issuer and auth.jwt.audience" }}
{{- end }}
{{- if and (eq $a.authorization "acl") (not (include "tide.internalPrincipals" .)) }}
{{- fail "auth.authorization=acl needs auth.internalPrincipals (e.g. the CN of the TLS certificate) or auth.serviceAccountToken.enabled" }}
{{- end }}
{{- if $a.mtls.enabled }}
- name: TIDE_AUTH_MTLS
  value: "true"
- name: TIDE_AUTH_MTLS_PRINCIPAL_SOURCE
  value: {{ $a.mtls.principalSource | quote }}
- name: TIDE_AUTH_MTLS_PRINCIPAL_RULES
  value: {{ $a.mtls.principalRules | quote }}
{{- end }}
{{- if or $a.jwt.jwksConfigMap $a.jwt.jwksSecret }}
- name: TIDE_AUTH_JWKS_FILE
  value: /etc/tide/auth/jwks/jwks.json
- name: TIDE_AUTH_JWT_ISSUER
  value: {{ $a.jwt.issuer | quote }}
- name: TIDE_AUTH_JWT_AUDIENCE
  value: {{ $a.jwt.audience | quote }}
- name: TIDE_AUTH_JWT_PRINCIPAL_CLAIM
  value: {{ $a.jwt.principalClaim | quote }}
{{- end }}
{{- if $a.staticTokens.existingSecret }}
- name: TIDE_AUTH_STATIC_TOKENS_FILE
  value: /etc/tide/auth/static/tokens
{{- end }}
{{- if ne $a.authorization "none" }}
- name: TIDE_AUTHORIZATION
  value: {{ $a.authorization | quote }}
{{- end }}
{{- with $a.superUsers }}
- name: TIDE_SUPER_USERS
  value: {{ join "," . | quote }}
{{- end }}
{{- with include "tide.internalPrincipals" . }}
- name: TIDE_INTERNAL_PRINCIPALS
  value: {{ . | quote }}
{{- end }}
{{- if $a.serviceAccountToken.enabled }}
- name: TIDE_INTERNAL_TOKEN_FILE
  value: /etc/tide/auth/sa/token
{{- end }}
{{- if ne $a.quotas "auto" }}
- name: TIDE_QUOTAS
  value: {{ $a.quotas | quote }}
{{- end }}
{{- end }}

{{- define "tide.authVolumeMounts" -}}
{{- $a := .Values.auth }}
{{- if or $a.jwt.jwksConfigMap $a.jwt.jwksSecret }}
- name: auth-jwks
  mountPath: /etc/tide/auth/jwks
  readOnly: true
{{- end }}
{{- if $a.staticTokens.existingSecret }}
- name: auth-static-tokens
  mountPath: /etc/tide/auth/static
  readOnly: true
{{- end }}
{{- if $a.serviceAccountToken.enabled }}
- name: auth-sa-token
  mountPath: /etc/tide/auth/sa
  readOnly: true
{{- end }}
{{- end }}

{{/* Mounted as directories (not subPath), so kubelet's updates reach the files the services re-read. */}}
{{- define "tide.authVolumes" -}}
{{- $a := .Values.auth }}
{{- if $a.jwt.jwksConfigMap }}
- name: auth-jwks
  configMap:
    name: {{ $a.jwt.jwksConfigMap }}
    items:
      - key: {{ $a.jwt.jwksKey }}
        path: jwks.json
{{- else if $a.jwt.jwksSecret }}
- name: auth-jwks
  secret:
    secretName: {{ $a.jwt.jwksSecret }}
    defaultMode: 0440
    items:
      - key: {{ $a.jwt.jwksKey }}
        path: jwks.json
{{- end }}
{{- if $a.staticTokens.existingSecret }}
- name: auth-static-tokens
  secret:
    secretName: {{ $a.staticTokens.existingSecret }}
    defaultMode: 0440
    items:
      - key: {{ $a.staticTokens.key }}
        path: tokens
{{- end }}
{{- if $a.serviceAccountToken.enabled }}
- name: auth-sa-token
  projected:
    defaultMode: 0440
    sources:
      - serviceAccountToken:
          audience: {{ $a.serviceAccountToken.audience | quote }}
          expirationSeconds: {{ include "tide.scalar" $a.serviceAccountToken.expirationSeconds }}
          path: token
{{- end }}
{{- end }}
