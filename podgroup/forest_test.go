package podgroup

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func composite(name, parent string) *CompositePodGroup {
	return &CompositePodGroup{Name: name, Parent: parent}
}

func TestForestShapeAndOrder(t *testing.T) {
	var f Forest
	require.NoError(t, f.AddComposite(composite("root", "")))
	require.NoError(t, f.AddComposite(&CompositePodGroup{Name: "zone-b", Parent: "root", CreationTime: 2}))
	require.NoError(t, f.AddComposite(&CompositePodGroup{Name: "zone-a", Parent: "root", CreationTime: 2}))
	require.NoError(t, f.AddGroup(&PodGroup{Name: "early", Parent: "root", CreationTime: 1}))
	require.NoError(t, f.AddGroup(&PodGroup{Name: "w1", Parent: "zone-a"}))
	root := Ref{Composite: true, Key: "default/root"}
	require.Equal(t, []Ref{{Key: "default/early"}, {Composite: true, Key: "default/zone-a"}, {Composite: true, Key: "default/zone-b"}}, f.Children("default/root"))
	require.Equal(t, root, f.Root(Ref{Key: "default/w1"}))
	require.Equal(t, 3, f.Depth(Ref{Key: "default/w1"}))
	require.Equal(t, []Ref{{Key: "default/early"}, {Key: "default/w1"}}, f.Leaves(root))
}

func TestForestRejects(t *testing.T) {
	var f Forest
	require.NoError(t, f.AddComposite(composite("c1", "")))
	require.NoError(t, f.AddComposite(composite("c2", "c1")))
	require.NoError(t, f.AddComposite(composite("c3", "c2")))
	tests := []struct {
		name string
		add  func() error
		err  string
	}{
		{"self parent", func() error { return f.AddComposite(composite("x", "x")) }, `"x" is its own parent (a cycle)`},
		{"unknown parent", func() error { return f.AddGroup(&PodGroup{Name: "g", Parent: "nope"}) }, `parent: composite pod group "nope" is not defined`},
		{"composite at depth 4", func() error { return f.AddComposite(composite("c4", "c3")) }, "composite pod group default/c4: parent: at depth 4 it leaves no room"},
		{"priority mismatch", func() error { return f.AddGroup(&PodGroup{Name: "g", Parent: "c1", Priority: new(int32(5))}) }, "pod group default/g: priority: 5 differs from its parent c1's 0"},
		{"duplicate", func() error { return f.AddComposite(composite("c2", "c1")) }, "composite pod group default/c2: name: is defined twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.add()
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.err)
		})
	}
	require.Len(t, f.Children("default/c3"), 0, "failed adds leave nothing behind")
	require.NoError(t, f.AddGroup(&PodGroup{Name: "deepest", Parent: "c3"}))
	require.Equal(t, 4, f.Depth(Ref{Key: "default/deepest"}))
}
