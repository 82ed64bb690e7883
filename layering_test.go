package gangsim

import (
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// allowedImports is The layering (docs/architecture.md): each package may import only
// the module packages listed (lower layers), never a sibling or a higher
// one. The root package may import them all; examples may import anything.
var allowedImports = map[string][]string{
	// internal holds hardware helpers below every layer (prefetch)
	"internal":   {},
	"cluster":    {}, // cluster/deviceselector too: it imports cluster alone
	"podgroup":   {"cluster"},
	"framework":  {"cluster", "podgroup"},
	"queue":      {"cluster", "podgroup", "internal"},
	"placement":  {"cluster", "podgroup", "framework", "internal"},
	"preemption": {"cluster", "podgroup", "framework"},
	// API-server admission (priority, LimitRange, ResourceQuota): values
	// in, verdicts out, beside the plugins and below the root
	"admission": {"cluster", "podgroup"},
	// the device allocator speaks Go values and errors on the model alone
	// (cluster/deviceselector too), never framework's Status
	"dra": {"cluster"},
	// the built-in plugins, on the public plugin API (see TestPluginFolders)
	"plugins": {"cluster", "podgroup", "framework", "preemption", "dra"},
	// the user layer reads the engine; the engine never imports it
	"scenario": {"", "cluster", "podgroup", "framework", "placement", "preemption", "plugins", "autoscaler", "controllers", "admission", "kueue"},
	// importers build scenarios
	"trace": {"", "cluster", "podgroup", "scenario"},
	// metrics reads the event stream alone (its plots sub-package too),
	// with the autoscaler's and Kueue's records beside it
	"metrics": {"", "cluster", "podgroup", "autoscaler", "kueue"},
	// what-if searches run scenarios and measure them; their variants
	// change Kueue's objects
	"whatif": {"", "cluster", "podgroup", "framework", "placement", "plugins", "scenario", "metrics", "autoscaler", "controllers", "kueue"},
	// the cluster autoscaler drives a Scheduler through its public API
	"autoscaler": {"", "cluster", "podgroup"},
	// the workload controllers (Job, ReplicaSet, StatefulSet, DaemonSet)
	// drive a Scheduler through its public API, beside the autoscaler
	"controllers": {"", "cluster", "podgroup"},
	// Kueue's objects and their validation: plain values on the model
	"kueue": {"cluster"},
	// test helpers for policy authors build the model and read it back
	"gangsimtest": {"cluster", "podgroup", "framework"},
}

// engineStdlibBans are the standard packages the engine (the root and every
// package below it) must not import: it does no I/O and knows no file
// format, which lives in the user layer above it.
var engineStdlibBans = []string{"os", "io/fs", "encoding/json", "net", "net/http"}

const modulePath = "github.com/gangsim/gangsim"

func TestLayering(t *testing.T) {
	for _, v := range layeringViolations(t, ".") {
		t.Error(v)
	}
}

// layeringViolations checks every layered package under root.
func layeringViolations(t *testing.T, root string) []string {
	var out []string
	for pkg, allowed := range allowedImports {
		for _, imp := range moduleImports(t, filepath.Join(root, pkg)) {
			top := strings.SplitN(imp, "/", 2)[0]
			if imp == "" {
				top = "" // the root package
			}
			if top != pkg && !slices.Contains(allowed, top) {
				out = append(out, fmt.Sprintf("package %s imports %s/%s: lower layers must not import %s (see docs/architecture.md)", pkg, modulePath, imp, top))
			}
		}
	}
	return out
}

// moduleImports lists the module-relative imports of the non-test Go files
// under dir (subpackages included).
func moduleImports(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if os.IsNotExist(err) {
			return nil
		}
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if p == modulePath {
				out = append(out, "")
			} else if rel, ok := strings.CutPrefix(p, modulePath+"/"); ok {
				out = append(out, rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPluginFolders holds each built-in plugin to what a user's copy of
// its folder could import: the engine's public API below the root and
// plugins/helper, never another plugin, the runner (placement) or the
// scheduler. The registry (plugins itself) names them all.
func TestPluginFolders(t *testing.T) {
	allowed := []string{"cluster", "cluster/deviceselector", "podgroup", "framework", "preemption", "dra", "plugins/helper"}
	dirs, err := os.ReadDir("plugins")
	require.NoError(t, err)
	folders := 0
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		folders++
		for _, imp := range moduleImports(t, filepath.Join("plugins", d.Name())) {
			if !slices.Contains(allowed, imp) && imp != "plugins/"+d.Name() {
				t.Errorf("plugins/%s imports %s: a plugin folder uses only %v", d.Name(), imp, allowed)
			}
		}
	}
	require.Equal(t, 14, folders, "thirteen plugin folders and helper")
}

// TestLayeringCatchesViolations proves the check is live: a lower package
// importing a sibling is reported.
func TestLayeringCatchesViolations(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "queue")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package queue\nimport _ \"" + modulePath + "/placement\"\n"
	if err := os.WriteFile(filepath.Join(bad, "x.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	got := layeringViolations(t, dir)
	if len(got) != 1 || !strings.Contains(got[0], "package queue imports") {
		t.Fatalf("violations = %v, want one for queue importing placement", got)
	}
}

// belowParent lists sub-packages that lie below their parent package, and
// what each must not import: scenario's importer and its internals serve
// scenario's entry points, and the file schema lies below the importer.
var belowParent = map[string][]string{
	"scenario/kube":     {"scenario"},
	"scenario/internal": {"scenario", "scenario/kube"},
	// placement's shortcuts serve placement and lie below it
	"placement/internal": {"placement"},
}

func TestSubpackagesBelowParent(t *testing.T) {
	for sub, banned := range belowParent {
		for _, imp := range moduleImports(t, sub) {
			if slices.Contains(banned, imp) {
				t.Errorf("package %s imports %s/%s, which lies above it (see docs/architecture.md)", sub, modulePath, imp)
			}
		}
	}
}

// TestEngineDoesNoIO checks, through the build's own dependency list, that
// the root package and every module package it depends on import no file
// system, no file-format encoding and no YAML: those belong to the user
// layer above the engine.
func TestEngineDoesNoIO(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if .Module}}{{.ImportPath}} {{join .Imports \" \"}}{{end}}", ".").Output()
	require.NoError(t, err)
	engine := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		if !strings.HasPrefix(fields[0], modulePath) {
			continue // btree
		}
		engine++
		for _, imp := range fields[1:] {
			require.False(t, strings.Contains(imp, "yaml"), "%s imports %s", fields[0], imp)
			require.False(t, strings.HasPrefix(imp, "gonum.org/"), "%s imports %s: numerics and plots belong to the user layer", fields[0], imp)
			require.False(t, slices.Contains(engineStdlibBans, imp), "%s imports %s", fields[0], imp)
			require.False(t, strings.HasPrefix(imp, modulePath+"/scenario"), "%s imports %s", fields[0], imp)
			require.False(t, strings.HasPrefix(imp, modulePath+"/trace"), "%s imports %s", fields[0], imp)
		}
	}
	require.Equal(t, 13+15, engine, "the root, its eight layers, cluster/deviceselector, internal/prefetch, placement/internal/memo and knowngroups and the 15 packages of plugins are listed")
}
