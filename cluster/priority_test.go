package cluster

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPriorityClassesAdd(t *testing.T) {
	base := func() *PriorityClasses {
		var pcs PriorityClasses // the zero value is usable
		require.NoError(t, pcs.Add(PriorityClass{Name: "high", Value: 1000}))
		require.NoError(t, pcs.Add(PriorityClass{Name: "default", Value: 10, GlobalDefault: true}))
		return &pcs
	}
	tests := []struct {
		name    string
		pc      PriorityClass
		mention []string // nil: accepted
	}{
		{"new class", PriorityClass{Name: "low", Value: -5, PreemptionPolicy: PreemptNever}, nil},
		{"at the maximum", PriorityClass{Name: "max", Value: MaxUserPriority}, nil},
		{"explicit default policy", PriorityClass{Name: "p", PreemptionPolicy: PreemptLowerPriority}, nil},
		{"no name", PriorityClass{Value: 1}, []string{"name: must not be empty"}},
		{"duplicate", PriorityClass{Name: "high", Value: 1}, []string{`"high"`, "already defined"}},
		{"second global default", PriorityClass{Name: "other", GlobalDefault: true}, []string{`"other"`, "globalDefault", `"default"`}},
		{"too large", PriorityClass{Name: "huge", Value: MaxUserPriority + 1}, []string{`"huge"`, "1000000001", "above"}},
		{"bad policy", PriorityClass{Name: "odd", PreemptionPolicy: "Always"}, []string{`"odd"`, "preemptionPolicy", `"Always"`}},
		{"built-in system class", PriorityClass{Name: SystemNodeCritical, Value: SystemNodeCriticalValue}, nil},
		{"system class with another value", PriorityClass{Name: SystemClusterCritical, Value: 5}, []string{`"system-cluster-critical"`, "name", "reserved"}},
		{"system prefix of an unknown class", PriorityClass{Name: "system-mine", Value: 5}, []string{`"system-mine"`, "reserved"}},
		{"system class as global default", PriorityClass{Name: SystemClusterCritical, Value: SystemClusterCriticalValue, GlobalDefault: true}, []string{"reserved"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pcs := base()
			err := pcs.Add(tt.pc)
			got, found := pcs.Get(tt.pc.Name)
			if tt.mention == nil {
				require.NoError(t, err)
				assert.True(t, found)
				assert.Equal(t, tt.pc, got)
				return
			}
			require.ErrorIs(t, err, ErrPriorityClass)
			for _, m := range tt.mention {
				assert.Contains(t, err.Error(), m)
			}
			def, _ := pcs.GlobalDefault()
			assert.Equal(t, "default", def.Name, "a failed Add keeps the global default")
			if found {
				assert.NotEqual(t, tt.pc, got, "a failed Add replaced the class")
			}
			var names []string
			for pc := range pcs.All() {
				names = append(names, pc.Name)
			}
			assert.Equal(t, []string{"default", "high"}, names, "a failed Add added nothing")
		})
	}
}

func TestSystemPriorityClasses(t *testing.T) {
	var pcs PriorityClasses
	for _, pc := range SystemPriorityClasses() {
		require.True(t, IsSystemPriorityClass(pc))
		require.Greater(t, pc.Value, int32(MaxUserPriority), "only system classes go above the user maximum")
		require.NoError(t, pcs.Add(pc))
	}
	v, _, err := pcs.Resolve(SystemNodeCritical)
	require.NoError(t, err)
	require.Equal(t, int32(2000001000), v)
	require.False(t, IsSystemPriorityClass(PriorityClass{Name: SystemNodeCritical, Value: SystemNodeCriticalValue, PreemptionPolicy: PreemptNever}))
}

func TestPriorityClassesResolve(t *testing.T) {
	var none PriorityClasses
	v, policy, err := none.Resolve("")
	require.NoError(t, err)
	assert.Equal(t, int32(0), v)
	assert.Equal(t, PreemptLowerPriority, policy)
	_, ok := none.GlobalDefault()
	assert.False(t, ok)

	var pcs PriorityClasses
	require.NoError(t, pcs.Add(PriorityClass{Name: "batch", Value: 5, PreemptionPolicy: PreemptNever}))
	require.NoError(t, pcs.Add(PriorityClass{Name: "web", Value: 100}))
	v, _, _ = pcs.Resolve("")
	assert.Equal(t, int32(0), v, "no global default yet")
	require.NoError(t, pcs.Add(PriorityClass{Name: "normal", Value: 50, GlobalDefault: true}))

	tests := []struct {
		class  string
		value  int32
		policy PreemptionPolicy
	}{
		{"", 50, PreemptLowerPriority},
		{"batch", 5, PreemptNever},
		{"web", 100, PreemptLowerPriority},
		{"normal", 50, PreemptLowerPriority},
	}
	for _, tt := range tests {
		v, policy, err := pcs.Resolve(tt.class)
		require.NoError(t, err, tt.class)
		assert.Equal(t, tt.value, v, tt.class)
		assert.Equal(t, tt.policy, policy, tt.class)
	}

	_, _, err = pcs.Resolve("missing")
	require.ErrorIs(t, err, ErrPriorityClass)
	assert.Contains(t, err.Error(), `"missing"`)

	var names []string
	for pc := range pcs.All() {
		names = append(names, pc.Name)
		break // early exit is honoured
	}
	assert.Equal(t, []string{"batch"}, names)
}
