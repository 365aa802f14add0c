// Command renderer renders a Helm chart the way `helm template` does, for Tide's chart tests
// (test/helm/). There is no helm binary here, so this is a small stand-in built from the same
// parts Helm's engine uses:
//
//   - Go's text/template with sprig's function map (minus env/expandenv, as Helm), plus Helm's
//     own functions: include, tpl, required, toYaml, fromYaml, fromYamlArray, toJson, fromJson,
//     fromJsonArray, lookup (always empty, as in `helm template`).
//   - Values: the chart's values.yaml coalesced with each -f file in order (maps merge, a null
//     deletes a default), then validated against values.schema.json with gojsonschema (the
//     validator Helm 3 used), as `helm install` does.
//   - Objects: .Values, .Release, .Chart, .Capabilities, .Template and .Files.
//   - Output: each template's text split into documents on `---` (Helm's SplitManifests), empty
//     ones dropped; NOTES.txt rendered apart.
//
// What it does not do: subcharts, hooks' ordering, `helm lint`'s checks, and anything an API
// server would (admission, defaulting, strict field validation).
//
// Build (Debian packages golang-go, golang-github-masterminds-sprig-dev,
// golang-k8s-sigs-yaml-dev, golang-github-xeipuuv-gojsonschema-dev; no network):
//
//	GO111MODULE=off GOPATH=/usr/share/gocode go build -o renderer ./test/helm/renderer
//
// (GOPATH mode: Debian installs sprig v3 under its v1 import path, github.com/Masterminds/sprig.)
//
// Use: renderer -chart helm/tide [-name tide] [-namespace default] [-f values.yaml]... [-o json|yaml|values]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"github.com/xeipuuv/gojsonschema"
	"sigs.k8s.io/yaml"
)

// Chart mirrors the fields of Helm's chart.Metadata that templates read as .Chart.*.
type Chart struct {
	APIVersion  string   `json:"apiVersion"`
	Name        string   `json:"name"`
	Version     string   `json:"version"`
	AppVersion  string   `json:"appVersion"`
	KubeVersion string   `json:"kubeVersion"`
	Description string   `json:"description"`
	Type        string   `json:"type"`
	Keywords    []string `json:"keywords"`
	Home        string   `json:"home"`
	Sources     []string `json:"sources"`
	Icon        string   `json:"icon"`
}

// Release mirrors .Release of `helm template` (an install).
type Release struct {
	Name      string
	Namespace string
	Service   string
	IsInstall bool
	IsUpgrade bool
	Revision  int
}

// KubeVersion mirrors .Capabilities.KubeVersion.
type KubeVersion struct {
	Version    string
	Major      string
	Minor      string
	GitVersion string
}

func (k KubeVersion) String() string { return k.Version }

// VersionSet mirrors .Capabilities.APIVersions.
type VersionSet []string

// Has reports whether an API version ("group/version" or "group/version/Kind") is available.
func (v VersionSet) Has(apiVersion string) bool {
	for _, x := range v {
		if x == apiVersion {
			return true
		}
	}
	return false
}

// Capabilities mirrors .Capabilities.
type Capabilities struct {
	KubeVersion KubeVersion
	APIVersions VersionSet
	HelmVersion map[string]string
}

// Files mirrors .Files: the chart's non-template files by path.
type Files map[string][]byte

// Get returns a file's content, or "" when it is absent.
func (f Files) Get(name string) string { return string(f[name]) }

// GetBytes returns a file's content.
func (f Files) GetBytes(name string) []byte { return f[name] }

// Glob returns the files whose path matches a pattern.
func (f Files) Glob(pattern string) Files {
	out := Files{}
	for name, data := range f {
		if ok, _ := path.Match(pattern, name); ok {
			out[name] = data
		}
	}
	return out
}

type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// Document is one rendered object, as JSON, with the template it came from.
type Document struct {
	Source string      `json:"source"`
	Object interface{} `json:"object"`
}

// Output is what -o json prints.
type Output struct {
	Manifests []Document `json:"manifests"`
	Notes     string     `json:"notes"`
}

const recursionMax = 1000

func main() {
	chartDir := flag.String("chart", "", "chart folder (holding Chart.yaml)")
	name := flag.String("name", "tide", "release name")
	namespace := flag.String("namespace", "default", "release namespace")
	kubeVersion := flag.String("kube-version", "1.29.0", "Kubernetes version for .Capabilities")
	output := flag.String("o", "json", "output: json (objects as JSON), yaml (like helm template) or values (the coalesced values as JSON)")
	var valueFiles, apiVersions stringList
	flag.Var(&valueFiles, "f", "values file (repeatable; later files win)")
	flag.Var(&apiVersions, "api-versions", "extra API versions for .Capabilities.APIVersions (repeatable)")
	flag.Parse()
	if *chartDir == "" {
		fail(errors.New("-chart is required"))
	}
	if err := run(*chartDir, *name, *namespace, *kubeVersion, *output, valueFiles, apiVersions); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "Error:", err)
	os.Exit(1)
}

func run(chartDir, name, namespace, kubeVersion, output string, valueFiles, apiVersions []string) error {
	var chart Chart
	if err := readYAML(filepath.Join(chartDir, "Chart.yaml"), &chart); err != nil {
		return err
	}
	values := map[string]interface{}{}
	if err := readYAML(filepath.Join(chartDir, "values.yaml"), &values); err != nil {
		return err
	}
	for _, file := range valueFiles {
		override := map[string]interface{}{}
		if err := readYAML(file, &override); err != nil {
			return err
		}
		values = coalesce(override, values)
	}
	if err := validateValues(chartDir, values); err != nil {
		return err
	}
	if output == "values" {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", " ")
		return enc.Encode(values)
	}
	templates, files, err := loadChart(chartDir, chart.Name)
	if err != nil {
		return err
	}
	top := map[string]interface{}{
		"Values":       values,
		"Release":      Release{Name: name, Namespace: namespace, Service: "Helm", IsInstall: true, Revision: 1},
		"Chart":        chart,
		"Capabilities": capabilities(kubeVersion, apiVersions),
		"Files":        files,
	}
	rendered, err := render(chart.Name, templates, top)
	if err != nil {
		return err
	}
	return write(rendered, output)
}

func readYAML(file string, into interface{}) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(data, into); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// coalesce merges dst (the user's values) over src (the defaults), as Helm's CoalesceTables: maps
// merge key by key, a null in dst deletes the default, anything else in dst wins.
func coalesce(dst, src map[string]interface{}) map[string]interface{} {
	out := map[string]interface{}{}
	for k, v := range src {
		out[k] = v
	}
	for k, v := range dst {
		if v == nil {
			delete(out, k)
			continue
		}
		dv, dIsMap := v.(map[string]interface{})
		sv, sIsMap := out[k].(map[string]interface{})
		if dIsMap && sIsMap {
			out[k] = coalesce(dv, sv)
		} else {
			out[k] = v
		}
	}
	return out
}

func validateValues(chartDir string, values map[string]interface{}) error {
	schema, err := os.ReadFile(filepath.Join(chartDir, "values.schema.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	doc, err := json.Marshal(values)
	if err != nil {
		return err
	}
	result, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(schema), gojsonschema.NewBytesLoader(doc))
	if err != nil {
		return fmt.Errorf("values.schema.json: %w", err)
	}
	if result.Valid() {
		return nil
	}
	var msg strings.Builder
	msg.WriteString("values don't meet the specifications of the schema(s) in the following chart(s):\n")
	for _, e := range result.Errors() {
		fmt.Fprintf(&msg, "- %s\n", e)
	}
	return errors.New(msg.String())
}

// loadChart reads every file of the chart: templates/** as templates (named "<chart>/<path>", as
// Helm names them), everything else as .Files.
func loadChart(chartDir, chartName string) (map[string]string, Files, error) {
	templates := map[string]string{}
	files := Files{}
	err := filepath.Walk(chartDir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		rel, err := filepath.Rel(chartDir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if strings.HasPrefix(rel, "templates/") {
			templates[chartName+"/"+rel] = string(data)
		} else {
			files[rel] = data
		}
		return nil
	})
	return templates, files, err
}

func capabilities(kubeVersion string, extra []string) Capabilities {
	parts := strings.SplitN(strings.TrimPrefix(kubeVersion, "v"), ".", 3)
	for len(parts) < 2 {
		parts = append(parts, "0")
	}
	apis := VersionSet{"v1", "apps/v1", "policy/v1", "networking.k8s.io/v1", "batch/v1", "autoscaling/v2"}
	apis = append(apis, extra...)
	return Capabilities{
		KubeVersion: KubeVersion{Version: "v" + strings.TrimPrefix(kubeVersion, "v"), Major: parts[0], Minor: parts[1], GitVersion: "v" + strings.TrimPrefix(kubeVersion, "v")},
		APIVersions: apis,
		HelmVersion: map[string]string{"version": "v3-compatible-test-renderer"},
	}
}

// funcMap is Helm's: sprig's text functions without env/expandenv, plus Helm's own. include and
// tpl are bound to the template set by bind().
func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	extra := template.FuncMap{
		"toYaml":        toYAML,
		"fromYaml":      fromYAML,
		"fromYamlArray": fromYAMLArray,
		"toJson":        toJSON,
		"fromJson":      fromJSON,
		"fromJsonArray": fromJSONArray,
		"required": func(warn string, val interface{}) (interface{}, error) {
			if val == nil {
				return val, errors.New(warn)
			}
			if s, ok := val.(string); ok && s == "" {
				return val, errors.New(warn)
			}
			return val, nil
		},
		"lookup": func(string, string, string, string) (map[string]interface{}, error) {
			return map[string]interface{}{}, nil
		},
		"include": func(string, interface{}) (string, error) { return "", errors.New("not bound") },
		"tpl":     func(string, interface{}) (string, error) { return "", errors.New("not bound") },
	}
	for k, v := range extra {
		f[k] = v
	}
	return f
}

func toYAML(v interface{}) string {
	data, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return strings.TrimSuffix(string(data), "\n")
}

func fromYAML(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromYAMLArray(s string) []interface{} {
	a := []interface{}{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func fromJSON(s string) map[string]interface{} {
	m := map[string]interface{}{}
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func fromJSONArray(s string) []interface{} {
	a := []interface{}{}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		a = []interface{}{err.Error()}
	}
	return a
}

// bind gives include and tpl access to the parsed template set, as Helm's initFunMap.
func bind(t *template.Template) {
	included := map[string]int{}
	t.Funcs(template.FuncMap{
		"include": func(name string, data interface{}) (string, error) {
			if included[name] > recursionMax {
				return "", fmt.Errorf("rendering template has a nested reference name: %s", name)
			}
			included[name]++
			defer func() { included[name]-- }()
			var buf strings.Builder
			err := t.ExecuteTemplate(&buf, name, data)
			return buf.String(), err
		},
		"tpl": func(text string, vals interface{}) (string, error) {
			clone, err := t.Clone()
			if err != nil {
				return "", err
			}
			name := "tpl"
			if m, ok := vals.(map[string]interface{}); ok {
				if tm, ok := m["Template"].(map[string]interface{}); ok {
					if n, ok := tm["Name"].(string); ok {
						name = n
					}
				}
			}
			clone.Option("missingkey=zero")
			if _, err := clone.New(name).Parse(text); err != nil {
				return "", fmt.Errorf("cannot parse template %q: %w", text, err)
			}
			var buf strings.Builder
			if err := clone.ExecuteTemplate(&buf, name, vals); err != nil {
				return "", fmt.Errorf("error during tpl function execution for %q: %w", text, err)
			}
			return strings.ReplaceAll(buf.String(), "<no value>", ""), nil
		},
	})
}

type rendered struct {
	files map[string]string
	notes string
}

func render(chartName string, templates map[string]string, top map[string]interface{}) (rendered, error) {
	t := template.New("gotpl").Funcs(funcMap())
	t.Option("missingkey=zero")
	bind(t)
	names := make([]string, 0, len(templates))
	for n := range templates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if _, err := t.New(n).Parse(templates[n]); err != nil {
			return rendered{}, fmt.Errorf("parse error in %q: %w", n, err)
		}
	}
	out := rendered{files: map[string]string{}}
	for _, n := range names {
		base := path.Base(n)
		if strings.HasPrefix(base, "_") {
			continue
		}
		vals := map[string]interface{}{}
		for k, v := range top {
			vals[k] = v
		}
		vals["Template"] = map[string]interface{}{"Name": n, "BasePath": chartName + "/templates"}
		var buf strings.Builder
		if err := t.ExecuteTemplate(&buf, n, vals); err != nil {
			return rendered{}, err
		}
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if n == chartName+"/templates/NOTES.txt" {
			out.notes = text
			continue
		}
		out.files[n] = text
	}
	return out, nil
}

var separator = regexp.MustCompile(`(?:^|\s*\n)---\s*`)

func write(r rendered, output string) error {
	names := make([]string, 0, len(r.files))
	for n := range r.files {
		names = append(names, n)
	}
	sort.Strings(names)
	result := Output{Manifests: []Document{}, Notes: r.notes}
	var text bytes.Buffer
	for _, n := range names {
		for _, doc := range separator.Split(r.files[n], -1) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			var obj interface{}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				return fmt.Errorf("YAML parse error on %s: %w\n%s", n, err, doc)
			}
			if obj == nil {
				continue // comments only
			}
			result.Manifests = append(result.Manifests, Document{Source: n, Object: obj})
			fmt.Fprintf(&text, "---\n# Source: %s\n%s\n", n, strings.TrimSpace(doc))
		}
	}
	if output == "yaml" {
		_, err := os.Stdout.Write(text.Bytes())
		return err
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	return enc.Encode(result)
}
