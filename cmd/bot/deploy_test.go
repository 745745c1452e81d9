package main

// The files under deploy/ are checked here rather than by building them (no Docker engine in CI):
// every YAML file parses; every environment variable the compose file, the Kubernetes manifests,
// the Dockerfile and the systemd unit set is one the bot reads; the Kubernetes manifests reference
// every server variable; and the Slack app manifests ask for the scopes and call the paths that
// serve mounts.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/slack-go/slack"
	"gopkg.in/yaml.v3"

	"github.com/inquiry-bot/bot/slackapp"
)

// deployDir is deploy/ as seen from cmd/bot, where the tests run.
const deployDir = "../../deploy"

// composePostgres is the compose service that runs PostgreSQL: its POSTGRES_* variables belong to
// the postgres image, not to the bot, so its environment is the one not checked against configVars.
const composePostgres = "postgres"

// coreVars are the server's core variables, fixed here so that one dropped from configVars is
// noticed (BOT_URL and BOT_TOKEN, in the README's table too, are the CLI's: clientVars).
var coreVars = []string{
	"BOT_ADDR", "DATABASE_URL", "BOT_DEFAULT_POLICY", "BOT_DEFAULT_TRANSPORT", "BOT_SWEEP_SCHEDULE",
	"BOT_STALE_AFTER", "BOT_RETENTION", "BOT_CALLBACK_HOSTS", "BOT_CALLBACK_SECRET", "BOT_PUBLIC_URL",
	"SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SLACK_API_URL",
	"SLACK_DEFAULT_CHANNEL", "BOT_LOG_FORMAT",
}

// runtimeVars are read by the Go runtime of every Go program, not by the bot's configuration:
// a manifest may set them (GOMEMLIMIT under a container's memory limit).
var runtimeVars = []string{"GOMEMLIMIT", "GOMAXPROCS", "GOGC", "GODEBUG"}

// clientVars are read by the CLI and bot mcp (and the token file's place), not by a deployed
// server's configuration, so the manifests need not carry them.
var clientVars = []string{"BOT_URL", "BOT_TOKEN", "XDG_CONFIG_HOME", "BOT_MCP_POLICY"}

// secretVars must come from a Secret (Kubernetes) or from the operator's environment (compose),
// never be written into a file.
var secretVars = []string{"DATABASE_URL", "BOT_CALLBACK_SECRET", "SLACK_BOT_TOKEN", "SLACK_SIGNING_SECRET", "SLACK_APP_TOKEN", "SMTP_URL"}

// slackScopes are the bot scopes the Slack app needs, no more.
var slackScopes = []string{
	"chat:write", "chat:write.public", "users:read", "usergroups:read",
	"channels:history", "groups:history", "commands",
}

// serverVars is every variable a deployed server reads: coreVars and any configVars adds.
func serverVars() []string {
	vars := slices.Clone(coreVars)
	for _, v := range configVars {
		if !slices.Contains(vars, v) && !slices.Contains(clientVars, v) {
			vars = append(vars, v)
		}
	}
	return vars
}

// botReads reports whether the bot (serve, the CLI or bot mcp) reads the variable.
func botReads(name string) bool {
	return slices.Contains(configVars, name)
}

func deployPath(parts ...string) string {
	return filepath.Join(append([]string{deployDir}, parts...)...)
}

// decodeDocs decodes every document of a YAML file into a fresh T, skipping empty documents.
// Strict refuses keys T does not know. Errors carry the file's own line numbers.
func decodeDocs[T any](t *testing.T, path string, strict bool) []T {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Two decoders in step over the same documents: one sees whether a document is empty, the
	// other decodes it into T.
	nodes := yaml.NewDecoder(bytes.NewReader(b))
	typed := yaml.NewDecoder(bytes.NewReader(b))
	typed.KnownFields(strict)
	var docs []T
	for i := 1; ; i++ {
		var node yaml.Node
		err := nodes.Decode(&node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: document %d: %v", path, i, err)
		}
		var doc T
		if err := typed.Decode(&doc); err != nil {
			t.Fatalf("%s: document %d: %v", path, i, err)
		}
		if node.Kind == yaml.DocumentNode && len(node.Content) > 0 {
			docs = append(docs, doc)
		}
	}
	return docs
}

func TestDeployYAMLParses(t *testing.T) {
	t.Parallel()
	var files []string
	err := filepath.WalkDir(deployDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ext := filepath.Ext(path); !d.IsDir() && (ext == ".yaml" || ext == ".yml") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"compose.yaml", "slack-app-manifest.yaml", "slack-app-manifest-socket-mode.yaml",
		"k8s/kustomization.yaml", "k8s/deployment.yaml", "k8s/service.yaml", "k8s/pdb.yaml",
		"k8s/configmap.yaml", "k8s/secret.example.yaml",
	} {
		if !slices.Contains(files, deployPath(want)) {
			t.Errorf("deploy/%s is missing", want)
		}
	}
	for _, path := range files {
		// Duplicate keys, bad indentation and broken anchors all fail here.
		if docs := decodeDocs[any](t, path, false); len(docs) == 0 {
			t.Errorf("%s holds no YAML document", path)
		}
	}
}

// --- compose ---

type composeFile struct {
	Services map[string]composeService `yaml:"services"`
	Configs  map[string]struct {
		Content string `yaml:"content"`
	} `yaml:"configs"`
}

type composeService struct {
	Image           string           `yaml:"image"`
	Build           yaml.Node        `yaml:"build"`
	Environment     composeEnv       `yaml:"environment"`
	DependsOn       yaml.Node        `yaml:"depends_on"`
	Healthcheck     *yaml.Node       `yaml:"healthcheck"`
	Ports           []any            `yaml:"ports"`
	Configs         []map[string]any `yaml:"configs"`
	StopGracePeriod string           `yaml:"stop_grace_period"`
	User            string           `yaml:"user"`
	ReadOnly        bool             `yaml:"read_only"`
	CapDrop         []string         `yaml:"cap_drop"`
	SecurityOpt     []string         `yaml:"security_opt"`
	Tmpfs           []string         `yaml:"tmpfs"`
	Volumes         []any            `yaml:"volumes"`
}

// composeEnv is a service's environment, written as a mapping or as a list of NAME=value.
type composeEnv map[string]string

func (e *composeEnv) UnmarshalYAML(n *yaml.Node) error {
	*e = composeEnv{}
	switch n.Kind {
	case yaml.MappingNode:
		var m map[string]*string
		if err := n.Decode(&m); err != nil {
			return err
		}
		for k, v := range m {
			(*e)[k] = ""
			if v != nil {
				(*e)[k] = *v
			}
		}
	case yaml.SequenceNode:
		var list []string
		if err := n.Decode(&list); err != nil {
			return err
		}
		for _, kv := range list {
			k, v, _ := strings.Cut(kv, "=")
			(*e)[k] = v
		}
	default:
		return fmt.Errorf("line %d: environment is neither a mapping nor a list", n.Line)
	}
	return nil
}

// interpolate resolves ${NAME:-default}, ${NAME-default} and ${NAME} as compose would with
// nothing set in its environment, and ${NAME:?message} (which compose refuses to start without)
// as the operator's value, written here as "set".
var interpolation = regexp.MustCompile(`\$\{[A-Za-z_][A-Za-z0-9_]*(?:(:?-)([^}]*)|(:?\?)[^}]*)?\}`)

func interpolate(s string) string {
	return interpolation.ReplaceAllStringFunc(s, func(m string) string {
		sub := interpolation.FindStringSubmatch(m)
		if sub[3] != "" {
			return "set"
		}
		return sub[2]
	})
}

// requiredVar matches how a compose file reads a variable it must not start without.
func requiredVar(name string) *regexp.Regexp {
	return regexp.MustCompile(`^\$\{` + name + `:\?[^}]+\}$`)
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	docs := decodeDocs[composeFile](t, deployPath("compose.yaml"), false)
	if len(docs) != 1 {
		t.Fatalf("compose.yaml holds %d documents, want 1", len(docs))
	}
	return docs[0]
}

// composeBots are the services that run the bot: those given a DATABASE_URL.
func composeBots(c composeFile) []string {
	var bots []string
	for name, svc := range c.Services {
		if _, ok := svc.Environment["DATABASE_URL"]; ok && name != composePostgres {
			bots = append(bots, name)
		}
	}
	slices.Sort(bots)
	return bots
}

func TestDeployCompose(t *testing.T) {
	t.Parallel()
	c := loadCompose(t)

	pg, ok := c.Services[composePostgres]
	if !ok {
		t.Fatalf("compose.yaml has no %q service", composePostgres)
	}
	if !strings.HasPrefix(pg.Image, "postgres:15") {
		t.Errorf("service %s runs %q, want a postgres:15 image", composePostgres, pg.Image)
	}
	if pg.Healthcheck == nil {
		t.Errorf("service %s has no healthcheck, so the bots cannot wait for it to be healthy", composePostgres)
	}

	// The database password has no default: compose refuses to start without one, rather than
	// run PostgreSQL under a password everyone who read this file knows.
	if pw := pg.Environment["POSTGRES_PASSWORD"]; !requiredVar("POSTGRES_PASSWORD").MatchString(pw) {
		t.Errorf("service %s sets POSTGRES_PASSWORD to %q: require it, as ${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD …}", composePostgres, pw)
	}
	raw, err := os.ReadFile(deployPath("compose.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range regexp.MustCompile(`\$\{POSTGRES_PASSWORD[^}]*\}`).FindAllString(string(raw), -1) {
		if !requiredVar("POSTGRES_PASSWORD").MatchString(ref) {
			t.Errorf("compose.yaml reads the database password as %s: a default or an empty password must not start it, write ${POSTGRES_PASSWORD:?…}", ref)
		}
	}

	bots := composeBots(c)
	if len(bots) < 2 {
		t.Fatalf("compose.yaml runs %d bot replicas (%v), want at least 2", len(bots), bots)
	}
	first := c.Services[bots[0]]
	for _, name := range bots {
		svc := c.Services[name]
		if svc.Image == "" || svc.Image != first.Image {
			t.Errorf("bot %s runs image %q, want the one image all replicas run (%q)", name, svc.Image, first.Image)
		}
		if svc.Build.Kind == 0 {
			t.Errorf("bot %s has no build: the image is built from deploy/Dockerfile", name)
		}
		u, err := url.Parse(interpolate(svc.Environment["DATABASE_URL"]))
		if err != nil || u.Scheme != "postgres" || u.Hostname() != composePostgres {
			t.Errorf("bot %s: DATABASE_URL %q does not point at the %s service", name, svc.Environment["DATABASE_URL"], composePostgres)
		} else if pw, _ := u.User.Password(); pw != "set" {
			t.Errorf("bot %s: DATABASE_URL %q does not take its password from ${POSTGRES_PASSWORD:?…}", name, svc.Environment["DATABASE_URL"])
		}
		var deps map[string]struct {
			Condition string `yaml:"condition"`
		}
		if err := svc.DependsOn.Decode(&deps); err != nil || deps[composePostgres].Condition != "service_healthy" {
			t.Errorf("bot %s does not depend on %s with condition service_healthy", name, composePostgres)
		}
		if d, err := time.ParseDuration(svc.StopGracePeriod); err != nil || d <= shutdownGrace {
			t.Errorf("bot %s: stop_grace_period %q must exceed the bot's shutdown bound %s", name, svc.StopGracePeriod, shutdownGrace)
		}
		// The header says every variable is listed: an operator sets one in deploy/.env only if
		// the file passes it on (BOT_DELIVERY_LEASE was not).
		for _, v := range serverVars() {
			if _, ok := svc.Environment[v]; !ok {
				t.Errorf("bot %s does not pass %s on: list it as %s: ${%s:-}", name, v, v, v)
			}
		}
		for _, v := range secretVars {
			if got, ok := svc.Environment[v]; ok && v != "DATABASE_URL" && got != "${"+v+":-}" {
				t.Errorf("bot %s sets %s to %q: secrets come from the operator's environment as ${%s:-}", name, v, got, v)
			}
		}
		// The hardening of the Kubernetes Deployment: an unprivileged user, no capabilities, no
		// privileges gained through exec, a read-only root filesystem with memory where the bot
		// writes (/tmp, and /data, its XDG_CONFIG_HOME: the token file of the first start).
		if uid, _, _ := strings.Cut(svc.User, ":"); uid == "" || uid == "0" || uid == "root" {
			t.Errorf("bot %s runs as user %q: set user to the image's unprivileged 10001:10001", name, svc.User)
		}
		if !svc.ReadOnly {
			t.Errorf("bot %s has no read_only: true: its root filesystem must be read-only", name)
		}
		if !slices.Contains(svc.CapDrop, "ALL") {
			t.Errorf("bot %s drops capabilities %v, want cap_drop: [ALL]", name, svc.CapDrop)
		}
		if !slices.ContainsFunc(svc.SecurityOpt, func(o string) bool { return o == "no-new-privileges:true" || o == "no-new-privileges" }) {
			t.Errorf("bot %s has security_opt %v, want no-new-privileges:true", name, svc.SecurityOpt)
		}
		for _, dir := range []string{"/tmp", dockerEnv(t)["XDG_CONFIG_HOME"]} {
			if !slices.ContainsFunc(svc.Tmpfs, func(m string) bool { p, _, _ := strings.Cut(m, ":"); return p == dir }) {
				t.Errorf("bot %s mounts no tmpfs on %s, where it writes under a read-only root", name, dir)
			}
		}
		// The callback secret must be one for all replicas (left empty, it is generated once
		// in the shared database).
		for _, v := range []string{"BOT_CALLBACK_SECRET", "DATABASE_URL"} {
			if svc.Environment[v] != first.Environment[v] {
				t.Errorf("bot %s sets %s to %q, bot %s to %q: every replica needs the same", name, v, svc.Environment[v], bots[0], first.Environment[v])
			}
		}
	}

	// One port for all replicas: only the proxy publishes one, and its configuration names
	// every replica.
	var published []string
	for name, svc := range c.Services {
		if len(svc.Ports) > 0 {
			published = append(published, name)
		}
	}
	if len(published) != 1 || slices.Contains(bots, published[0]) || published[0] == composePostgres {
		t.Fatalf("services publishing a port: %v, want exactly one, the proxy in front of the bots", published)
	}
	proxy := c.Services[published[0]]
	var proxyConfig string
	for _, ref := range proxy.Configs {
		src, _ := ref["source"].(string)
		proxyConfig += c.Configs[src].Content
	}
	for _, name := range bots {
		if !strings.Contains(proxyConfig, name+":8080") {
			t.Errorf("the proxy's configuration does not route to %s:8080", name)
		}
	}
}

// --- Kubernetes ---

type k8sObject struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		Replicas *int      `yaml:"replicas"`
		Selector yaml.Node `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec k8sPodSpec `yaml:"spec"`
		} `yaml:"template"`
		MinAvailable *int `yaml:"minAvailable"`
	} `yaml:"spec"`
}

type k8sPodSpec struct {
	TerminationGracePeriodSeconds *int `yaml:"terminationGracePeriodSeconds"`
	SecurityContext               struct {
		RunAsNonRoot *bool `yaml:"runAsNonRoot"`
	} `yaml:"securityContext"`
	InitContainers []k8sContainer `yaml:"initContainers"`
	Containers     []k8sContainer `yaml:"containers"`
}

type k8sContainer struct {
	Name  string `yaml:"name"`
	Image string `yaml:"image"`
	Env   []struct {
		Name      string  `yaml:"name"`
		Value     *string `yaml:"value"`
		ValueFrom *struct {
			ConfigMapKeyRef *k8sKeyRef `yaml:"configMapKeyRef"`
			SecretKeyRef    *k8sKeyRef `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Resources struct {
		Limits map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	ReadinessProbe  *k8sProbe `yaml:"readinessProbe"`
	LivenessProbe   *k8sProbe `yaml:"livenessProbe"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		Capabilities             struct {
			Drop []string `yaml:"drop"`
		} `yaml:"capabilities"`
	} `yaml:"securityContext"`
}

type k8sKeyRef struct {
	Name     string `yaml:"name"`
	Key      string `yaml:"key"`
	Optional *bool  `yaml:"optional"`
}

type k8sProbe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
	} `yaml:"httpGet"`
}

// k8sManifests reads deploy/k8s: the objects of every file the kustomization lists, after
// checking that it lists every file there is.
func k8sManifests(t *testing.T) map[string][]k8sObject {
	t.Helper()
	type kustomization struct {
		Resources []string `yaml:"resources"`
	}
	docs := decodeDocs[kustomization](t, deployPath("k8s", "kustomization.yaml"), false)
	if len(docs) != 1 {
		t.Fatalf("k8s/kustomization.yaml holds %d documents, want 1", len(docs))
	}
	files, err := filepath.Glob(deployPath("k8s", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var present []string
	for _, f := range files {
		if base := filepath.Base(f); base != "kustomization.yaml" {
			present = append(present, base)
		}
	}
	slices.Sort(present)
	listed := slices.Sorted(slices.Values(docs[0].Resources))
	if !slices.Equal(listed, present) {
		t.Errorf("k8s/kustomization.yaml lists %v, the folder holds %v", listed, present)
	}
	objs := map[string][]k8sObject{}
	for _, f := range present {
		for _, o := range decodeDocs[k8sObject](t, deployPath("k8s", f), false) {
			objs[o.Kind] = append(objs[o.Kind], o)
		}
	}
	for _, kind := range []string{"Deployment", "ConfigMap", "Secret", "Service", "PodDisruptionBudget"} {
		if len(objs[kind]) != 1 {
			t.Fatalf("deploy/k8s holds %d %s objects, want 1", len(objs[kind]), kind)
		}
	}
	return objs
}

// matchLabels reads a selector's matchLabels (a Service's selector is the labels themselves).
func matchLabels(t *testing.T, n yaml.Node) map[string]string {
	t.Helper()
	var sel struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	}
	if err := n.Decode(&sel); err != nil {
		t.Fatal(err)
	}
	return sel.MatchLabels
}

func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func TestDeployK8s(t *testing.T) {
	t.Parallel()
	objs := k8sManifests(t)
	cm, secret, dep := objs["ConfigMap"][0], objs["Secret"][0], objs["Deployment"][0]
	secretKeys := map[string]bool{}
	for k := range secret.StringData {
		secretKeys[k] = true
	}
	for k := range secret.Data {
		secretKeys[k] = true
	}

	for _, v := range coreVars {
		if !slices.Contains(configVars, v) {
			t.Errorf("%s is a variable the server must read but not in configVars (cmd/bot/config.go)", v)
		}
	}
	for _, v := range serverVars() {
		_, inConfigMap := cm.Data[v]
		switch {
		case !inConfigMap && !secretKeys[v]:
			t.Errorf("%s is in neither the ConfigMap nor the Secret of deploy/k8s", v)
		case inConfigMap && secretKeys[v]:
			t.Errorf("%s is in both the ConfigMap and the Secret: keep one", v)
		case inConfigMap && slices.Contains(secretVars, v):
			t.Errorf("%s is a secret but sits in the ConfigMap: move it to the Secret", v)
		}
	}

	// The Deployment references each variable from where it is defined.
	pod := dep.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("the Deployment runs %d containers, want 1", len(pod.Containers))
	}
	bot := pod.Containers[0]
	refs := map[string]int{}
	for _, e := range bot.Env {
		refs[e.Name]++
		if e.ValueFrom == nil {
			continue
		}
		var ref *k8sKeyRef
		var ok bool
		switch {
		case e.ValueFrom.ConfigMapKeyRef != nil:
			ref = e.ValueFrom.ConfigMapKeyRef
			_, ok = cm.Data[ref.Key]
			ok = ok && ref.Name == cm.Metadata.Name
		case e.ValueFrom.SecretKeyRef != nil:
			ref = e.ValueFrom.SecretKeyRef
			ok = secretKeys[ref.Key] && ref.Name == secret.Metadata.Name
		default:
			continue
		}
		if !ok {
			t.Errorf("env %s refers to %s/%s, which deploy/k8s does not define", e.Name, ref.Name, ref.Key)
		}
		optional := ref.Optional != nil && *ref.Optional
		// Without DATABASE_URL every pod would keep a SQLite file of its own: split brain.
		if e.Name == "DATABASE_URL" && optional {
			t.Errorf("env DATABASE_URL is optional: replicas must not start without the shared database")
		}
		if e.Name != "DATABASE_URL" && !optional {
			t.Errorf("env %s is not optional: a missing key should mean the bot's default", e.Name)
		}
	}
	for _, v := range serverVars() {
		if refs[v] != 1 {
			t.Errorf("the Deployment sets %s %d times, want once", v, refs[v])
		}
	}

	if dep.Spec.Replicas == nil || *dep.Spec.Replicas < 2 {
		t.Errorf("the Deployment runs %v replicas, want at least 2", dep.Spec.Replicas)
	}
	if bot.ReadinessProbe == nil || bot.ReadinessProbe.HTTPGet.Path != "/readyz" {
		t.Errorf("the readiness probe must GET /readyz (the database is reachable)")
	}
	if bot.LivenessProbe == nil || bot.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("the liveness probe must GET /healthz (the process serves)")
	}
	if g := pod.TerminationGracePeriodSeconds; g == nil || time.Duration(*g)*time.Second <= shutdownGrace {
		t.Errorf("terminationGracePeriodSeconds must exceed the bot's shutdown bound %s", shutdownGrace)
	}
	sc := bot.SecurityContext
	if pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Errorf("the pod must set runAsNonRoot")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Errorf("the container must set allowPrivilegeEscalation: false")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Errorf("the container must set readOnlyRootFilesystem: true")
	}
	if !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Errorf("the container must drop ALL capabilities")
	}

	// A version, not :latest, here and in the kustomization that sets it: every pod of a rollout
	// runs the same build, and a rollback returns to a known one.
	if ref := bot.Image; imageTag(ref) == "" || imageTag(ref) == "latest" {
		t.Errorf("the Deployment runs image %q: name a version tag, not latest", ref)
	}
	type kustomization struct {
		Images []struct {
			Name    string `yaml:"name"`
			NewTag  string `yaml:"newTag"`
			Digest  string `yaml:"digest"`
			NewName string `yaml:"newName"`
		} `yaml:"images"`
	}
	for _, img := range decodeDocs[kustomization](t, deployPath("k8s", "kustomization.yaml"), false)[0].Images {
		if img.Digest == "" && (img.NewTag == "" || img.NewTag == "latest") {
			t.Errorf("k8s/kustomization.yaml sets image %s to tag %q: name a version (and a digest at a release)", img.Name, img.NewTag)
		}
	}

	// A soft memory limit for the Go runtime under the container's limit: the heap is collected
	// harder as it nears it instead of growing into an OOM kill. Some room must stay for what is
	// not heap.
	limit, err := k8sBytes(bot.Resources.Limits["memory"])
	if err != nil {
		t.Fatalf("the container's memory limit: %v", err)
	}
	var goMemLimit string
	for _, e := range bot.Env {
		if e.Name == "GOMEMLIMIT" && e.Value != nil {
			goMemLimit = *e.Value
		}
	}
	if soft, err := goBytes(goMemLimit); err != nil || soft < limit/2 || soft > limit*9/10 {
		t.Errorf("the container sets GOMEMLIMIT=%q (%v) under a memory limit of %s: want 50%%–90%% of it, such as %dMiB",
			goMemLimit, err, bot.Resources.Limits["memory"], limit*8/10>>20)
	}

	podLabels := dep.Spec.Template.Metadata.Labels
	if !selects(matchLabels(t, dep.Spec.Selector), podLabels) {
		t.Errorf("the Deployment's selector does not select its own pods")
	}
	pdb := objs["PodDisruptionBudget"][0]
	if pdb.Spec.MinAvailable == nil || *pdb.Spec.MinAvailable != 1 || !selects(matchLabels(t, pdb.Spec.Selector), podLabels) {
		t.Errorf("the PodDisruptionBudget must keep minAvailable 1 of the bot's pods")
	}
	var svcSelector map[string]string
	if err := objs["Service"][0].Spec.Selector.Decode(&svcSelector); err != nil || !selects(svcSelector, podLabels) {
		t.Errorf("the Service does not select the bot's pods")
	}
}

// imageTag is the tag of an image reference, "" when it names none (a digest alone is a pin).
func imageTag(ref string) string {
	ref, digest, _ := strings.Cut(ref, "@")
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		return ref[i+1:]
	}
	if digest != "" {
		return "@" + digest
	}
	return ""
}

// k8sBytes reads a Kubernetes memory quantity in the binary suffixes the manifests use.
func k8sBytes(q string) (int64, error) {
	for i, suffix := range []string{"Ki", "Mi", "Gi", "Ti"} {
		if n, ok := strings.CutSuffix(q, suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			return v << (10 * (i + 1)), err
		}
	}
	return strconv.ParseInt(q, 10, 64)
}

// goBytes reads GOMEMLIMIT as the runtime does: a number of bytes with an optional B, KiB, MiB,
// GiB or TiB suffix.
func goBytes(s string) (int64, error) {
	for i, suffix := range []string{"KiB", "MiB", "GiB", "TiB"} {
		if n, ok := strings.CutSuffix(s, suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			return v << (10 * (i + 1)), err
		}
	}
	return strconv.ParseInt(strings.TrimSuffix(s, "B"), 10, 64)
}

// --- Dockerfile and systemd ---

// shellFields splits words as a shell would: blanks separate, quotes group, a backslash
// escapes (but not inside single quotes).
func shellFields(s string) []string {
	var (
		fields []string
		cur    strings.Builder
		in     bool
		quote  rune
		escape bool
	)
	for _, r := range s {
		switch {
		case escape:
			cur.WriteRune(r)
			escape = false
		case r == '\\' && quote != '\'':
			escape, in = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case unicode.IsSpace(r):
			if in {
				fields = append(fields, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		fields = append(fields, cur.String())
	}
	return fields
}

// logicalLines reads a file's lines with backslash continuations joined and comment lines
// (starting with one of the comment characters) dropped, as Docker and systemd read them.
func logicalLines(t *testing.T, path, comments string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	var cur strings.Builder
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.ContainsRune(comments, rune(line[0])) {
			continue
		}
		if body, ok := strings.CutSuffix(line, `\`); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(line)
		lines = append(lines, cur.String())
		cur.Reset()
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cur.Len() > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// dockerFinalStage returns the instructions of the Dockerfile's last stage (the image that
// runs), each as its keyword and its arguments.
func dockerFinalStage(t *testing.T) [][2]string {
	t.Helper()
	var stage [][2]string
	for _, line := range logicalLines(t, deployPath("Dockerfile"), "#") {
		keyword, args, _ := strings.Cut(line, " ")
		keyword = strings.ToUpper(keyword)
		if keyword == "FROM" {
			stage = nil
		}
		stage = append(stage, [2]string{keyword, strings.TrimSpace(args)})
	}
	return stage
}

// dockerEnv is the ENV the final stage sets: NAME=value pairs, or the older "ENV NAME value".
func dockerEnv(t *testing.T) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, ins := range dockerFinalStage(t) {
		if ins[0] != "ENV" {
			continue
		}
		words := shellFields(ins[1])
		if len(words) > 0 && !strings.Contains(words[0], "=") {
			env[words[0]] = strings.Join(words[1:], " ")
			continue
		}
		for _, w := range words {
			k, v, _ := strings.Cut(w, "=")
			env[k] = v
		}
	}
	return env
}

// systemdService reads the [Service] section of the unit: each setting's values in order.
func systemdService(t *testing.T) map[string][]string {
	t.Helper()
	settings := map[string][]string{}
	section := ""
	for _, line := range logicalLines(t, deployPath("bot.service"), "#;") {
		if strings.HasPrefix(line, "[") {
			section = line
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Errorf("bot.service: %q is not a setting", line)
			continue
		}
		if section == "[Service]" {
			settings[strings.TrimSpace(k)] = append(settings[strings.TrimSpace(k)], strings.TrimSpace(v))
		}
	}
	return settings
}

// systemdEnv is the Environment= assignments of the unit.
func systemdEnv(t *testing.T) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, v := range systemdService(t)["Environment"] {
		for _, w := range shellFields(v) {
			k, val, _ := strings.Cut(w, "=")
			env[k] = val
		}
	}
	return env
}

func TestDeployDockerfile(t *testing.T) {
	t.Parallel()
	env := dockerEnv(t)
	host, _, err := net.SplitHostPort(env["BOT_ADDR"])
	if err != nil || (host != "0.0.0.0" && host != "" && host != "::") {
		t.Errorf("the image sets BOT_ADDR=%q: inside a container the bot must listen on every interface", env["BOT_ADDR"])
	}
	if !strings.HasPrefix(env["DATABASE_URL"], "sqlite:/data/") || env["XDG_CONFIG_HOME"] != "/data" {
		t.Errorf("the image must keep its SQLite database and token file in the /data volume (DATABASE_URL=%q, XDG_CONFIG_HOME=%q)",
			env["DATABASE_URL"], env["XDG_CONFIG_HOME"])
	}
	var user, volume, entry string
	for _, ins := range dockerFinalStage(t) {
		switch ins[0] {
		case "USER":
			user = ins[1]
		case "VOLUME":
			volume = ins[1]
		case "ENTRYPOINT", "CMD":
			entry += ins[1]
		}
	}
	if name, _, _ := strings.Cut(user, ":"); name == "" || name == "0" || name == "root" {
		t.Errorf("the image runs as user %q, want an unprivileged one", user)
	}
	if !strings.Contains(volume, "/data") {
		t.Errorf("the image declares VOLUME %q, want /data", volume)
	}
	if !strings.Contains(entry, `"serve"`) {
		t.Errorf("the image's entrypoint and command %s do not run bot serve", entry)
	}
}

// dockerRuns finds the `docker run` commands of a file that start the server (detached, -d),
// with backslash continuations joined; prefix is what each line of an example starts with in
// that file ("#" in the Dockerfile's comments, nothing in a README's code blocks).
func dockerRuns(t *testing.T, path, prefix string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var runs [][]string
	var cur strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		line, ok := strings.CutPrefix(strings.TrimSpace(line), prefix)
		if !ok {
			cur.Reset()
			continue
		}
		line = strings.TrimSpace(line)
		if body, more := strings.CutSuffix(line, `\`); more && (cur.Len() > 0 || strings.HasPrefix(line, "docker run ")) {
			cur.WriteString(body + " ")
			continue
		}
		if cur.Len() > 0 || strings.HasPrefix(line, "docker run ") {
			cur.WriteString(line)
			words := shellFields(cur.String())
			cur.Reset()
			if slices.Contains(words, "-d") || slices.Contains(words, "--detach") {
				runs = append(runs, words)
			}
		}
	}
	return runs
}

// TestDeployDockerRunIsHardened checks every `docker run` that starts the server in the
// README and the Dockerfile's header: the hardening of the Kubernetes Deployment (an
// unprivileged user, a read-only root, no capabilities, no privilege gained through exec), with a
// volume for the database in /data and memory for /tmp, where the bot writes.
func TestDeployDockerRunIsHardened(t *testing.T) {
	t.Parallel()
	for _, f := range []struct{ path, prefix string }{
		{deployPath("README.md"), ""},
		{deployPath("Dockerfile"), "#"},
	} {
		runs := dockerRuns(t, f.path, f.prefix)
		if len(runs) == 0 {
			t.Errorf("%s shows no docker run -d of the server: the test would pass without looking", f.path)
		}
		for _, words := range runs {
			cmd := strings.Join(words, " ")
			flag := func(name string) []string {
				var vals []string
				for i, w := range words {
					if v, ok := strings.CutPrefix(w, name+"="); ok {
						vals = append(vals, v)
					} else if w == name && i+1 < len(words) {
						vals = append(vals, words[i+1])
					}
				}
				return vals
			}
			if !slices.Contains(words, "--read-only") {
				t.Errorf("%s: %q lacks --read-only", f.path, cmd)
			}
			if !slices.Contains(flag("--cap-drop"), "ALL") {
				t.Errorf("%s: %q lacks --cap-drop ALL", f.path, cmd)
			}
			if !slices.ContainsFunc(flag("--security-opt"), func(v string) bool { return v == "no-new-privileges" || v == "no-new-privileges:true" }) {
				t.Errorf("%s: %q lacks --security-opt no-new-privileges", f.path, cmd)
			}
			if u := flag("--user"); len(u) != 1 || strings.HasPrefix(u[0], "0") || strings.HasPrefix(u[0], "root") {
				t.Errorf("%s: %q lacks --user with the image's unprivileged user (10001:10001)", f.path, cmd)
			}
			if !slices.ContainsFunc(flag("--tmpfs"), func(v string) bool { return strings.HasPrefix(v, "/tmp") }) {
				t.Errorf("%s: %q lacks --tmpfs /tmp, where the bot writes under a read-only root", f.path, cmd)
			}
			if !slices.ContainsFunc(append(flag("-v"), flag("--volume")...), func(v string) bool { return strings.HasSuffix(v, ":/data") }) {
				t.Errorf("%s: %q keeps no volume on /data, where the database is", f.path, cmd)
			}
		}
	}
}

func TestDeploySystemdUnit(t *testing.T) {
	t.Parallel()
	s := systemdService(t)
	env := systemdEnv(t)
	if got := env["DATABASE_URL"]; got != "sqlite:/var/lib/inquiry-bot/inquiry-bot.db" {
		t.Errorf("bot.service sets DATABASE_URL=%q, want SQLite in its state directory", got)
	}
	if !slices.Contains(s["StateDirectory"], "inquiry-bot") {
		t.Errorf("bot.service has no StateDirectory=inquiry-bot for its database")
	}
	if stop, err := strconv.Atoi(strings.TrimSuffix(strings.Join(s["TimeoutStopSec"], ""), "s")); err != nil || time.Duration(stop)*time.Second <= shutdownGrace {
		t.Errorf("bot.service: TimeoutStopSec=%v must exceed the bot's shutdown bound %s", s["TimeoutStopSec"], shutdownGrace)
	}
	for _, k := range []string{"NoNewPrivileges", "ProtectSystem", "ProtectHome", "PrivateTmp", "EnvironmentFile", "Restart"} {
		if len(s[k]) == 0 {
			t.Errorf("bot.service does not set %s=", k)
		}
	}
}

// --- every variable set is one the bot reads ---

func TestDeployEnvVarsAreReadByTheBot(t *testing.T) {
	t.Parallel()
	set := map[string][]string{} // name -> where it is set
	add := func(where string, names ...string) {
		if len(names) == 0 {
			t.Errorf("%s sets no environment variable: the test would pass without looking", where)
		}
		for _, n := range names {
			set[n] = append(set[n], where)
		}
	}
	keys := func(m map[string]string) []string { return slices.Sorted(mapKeys(m)) }

	c := loadCompose(t)
	for name, svc := range c.Services {
		if name == composePostgres || len(svc.Environment) == 0 {
			continue
		}
		add("compose.yaml service "+name, keys(svc.Environment)...)
	}
	for _, objs := range k8sManifests(t) {
		for _, o := range objs {
			where := "k8s " + o.Kind + " " + o.Metadata.Name
			switch o.Kind {
			case "ConfigMap":
				add(where, keys(o.Data)...)
			case "Secret":
				add(where, append(keys(o.StringData), keys(o.Data)...)...)
			case "Deployment":
				spec := o.Spec.Template.Spec
				for _, ctr := range append(spec.InitContainers, spec.Containers...) {
					var names []string
					for _, e := range ctr.Env {
						names = append(names, e.Name)
					}
					add(where+" container "+ctr.Name, names...)
				}
			}
		}
	}
	add("Dockerfile ENV", keys(dockerEnv(t))...)
	add("bot.service Environment=", keys(systemdEnv(t))...)

	for _, name := range slices.Sorted(mapKeys(set)) {
		if !botReads(name) && !slices.Contains(runtimeVars, name) {
			t.Errorf("%s is set by %s, but the bot reads no such variable (configVars in cmd/bot/config.go)",
				name, strings.Join(set[name], ", "))
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// --- Slack app manifests ---

func loadSlackManifest(t *testing.T, file string) slack.Manifest {
	t.Helper()
	// Strict: the schema refuses unknown properties (additionalProperties: false), so a
	// misspelt key is an error here as it would be in Slack.
	docs := decodeDocs[slack.Manifest](t, deployPath(file), true)
	if len(docs) != 1 {
		t.Fatalf("%s holds %d documents, want 1", file, len(docs))
	}
	m := docs[0]
	// Limits of slackapi/manifest-schema, schemas/manifest.schema.1.0.0.json.
	runes := func(s string) int { return len([]rune(s)) }
	if m.Metadata.MajorVersion != 1 || m.Metadata.MinorVersion != 1 {
		t.Errorf("%s: _metadata is %d.%d, want major_version 1, minor_version 1", file, m.Metadata.MajorVersion, m.Metadata.MinorVersion)
	}
	if n := runes(m.Display.Name); n < 1 || n > 35 {
		t.Errorf("%s: display_information.name has %d characters, Slack allows 1..35", file, n)
	}
	if n := runes(m.Display.Description); n > 140 {
		t.Errorf("%s: display_information.description has %d characters, Slack allows 140", file, n)
	}
	if n := runes(m.Display.LongDescription); n != 0 && (n < 175 || n > 4000) {
		t.Errorf("%s: display_information.long_description has %d characters, Slack allows 175..4000", file, n)
	}
	if c := m.Display.BackgroundColor; c != "" && !regexp.MustCompile(`^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$`).MatchString(c) {
		t.Errorf("%s: background_color %q is not #rgb or #rrggbb", file, c)
	}
	if n := runes(m.Features.BotUser.DisplayName); n < 1 || n > 80 {
		t.Errorf("%s: features.bot_user.display_name has %d characters, Slack requires 1..80", file, n)
	}
	if len(m.Features.SlashCommands) != 1 {
		t.Fatalf("%s: %d slash commands, want /inquiry alone", file, len(m.Features.SlashCommands))
	}
	cmd := m.Features.SlashCommands[0]
	if cmd.Command != "/inquiry" || cmd.Description == "" || runes(cmd.Description) > 2000 {
		t.Errorf("%s: slash command %q (description %q), want /inquiry with a description", file, cmd.Command, cmd.Description)
	}
	if got := slices.Sorted(slices.Values(m.OAuthConfig.Scopes.Bot)); !slices.Equal(got, slices.Sorted(slices.Values(slackScopes))) {
		t.Errorf("%s: bot scopes %v, want exactly %v", file, got, slackScopes)
	}
	if m.Settings.EventSubscriptions == nil {
		t.Fatalf("%s: no settings.event_subscriptions", file)
	}
	for _, e := range []string{"message.channels", "message.groups"} {
		if !slices.Contains(m.Settings.EventSubscriptions.BotEvents, e) {
			t.Errorf("%s: bot_events lacks %s (thread replies)", file, e)
		}
	}
	if !slices.Contains(m.Settings.EventSubscriptions.BotEvents, "app_home_opened") || !m.Features.AppHome.HomeTabEnabled {
		t.Errorf("%s: the App Home needs features.app_home.home_tab_enabled and the app_home_opened bot event", file)
	}
	if m.Settings.Interactivity == nil || !m.Settings.Interactivity.IsEnabled {
		t.Errorf("%s: interactivity is not enabled (buttons and modals)", file)
	}
	if m.Settings.OrgDeployEnabled || m.Settings.TokenRotationEnabled {
		t.Errorf("%s: org_deploy_enabled and token_rotation_enabled must be false (the bot keeps one static token)", file)
	}
	return m
}

func TestDeploySlackManifest(t *testing.T) {
	t.Parallel()
	m := loadSlackManifest(t, "slack-app-manifest.yaml")
	if m.Settings.SocketModeEnabled {
		t.Errorf("slack-app-manifest.yaml enables Socket Mode; it is the HTTP-mode manifest")
	}
	var interactions string
	if m.Settings.Interactivity != nil {
		interactions = m.Settings.Interactivity.RequestUrl
	}
	host := ""
	for _, u := range []struct{ what, url, path string }{
		{"event_subscriptions.request_url", m.Settings.EventSubscriptions.RequestUrl, slackapp.PathEvents},
		{"interactivity.request_url", interactions, slackapp.PathInteractions},
		{"slash_commands[0].url", m.Features.SlashCommands[0].Url, slackapp.PathCommands},
	} {
		parsed, err := url.Parse(u.url)
		if err != nil || parsed.Scheme != "https" || parsed.Host == "" || !strings.HasSuffix(parsed.Path, u.path) {
			t.Errorf("slack-app-manifest.yaml: %s is %q, want an https URL ending in %s (mounted by serve)", u.what, u.url, u.path)
			continue
		}
		if host == "" {
			host = parsed.Host
		} else if parsed.Host != host {
			t.Errorf("slack-app-manifest.yaml: %s goes to %s, the others to %s: one bot serves all three", u.what, parsed.Host, host)
		}
	}
}

func TestDeploySlackManifestSocketMode(t *testing.T) {
	t.Parallel()
	m := loadSlackManifest(t, "slack-app-manifest-socket-mode.yaml")
	if !m.Settings.SocketModeEnabled {
		t.Errorf("slack-app-manifest-socket-mode.yaml does not enable Socket Mode")
	}
	var urls []string
	urls = append(urls, m.Settings.EventSubscriptions.RequestUrl, m.Features.SlashCommands[0].Url)
	if m.Settings.Interactivity != nil {
		urls = append(urls, m.Settings.Interactivity.RequestUrl, m.Settings.Interactivity.MessageMenuOptionsUrl)
	}
	for _, u := range urls {
		if u != "" {
			t.Errorf("slack-app-manifest-socket-mode.yaml names the request URL %q: in Socket Mode everything comes over the socket", u)
		}
	}
}
