package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// container is a container with the given requests and limits.
func container(name string, req, lim ResourceList) Container {
	return Container{Name: name, Resources: ResourceRequirements{Requests: req, Limits: lim}}
}

func cpuMem(cpu, mem int64) ResourceList {
	l := ResourceList{}
	if cpu >= 0 {
		l[ResourceCPU] = cpu
	}
	if mem >= 0 {
		l[ResourceMemory] = mem
	}
	return l
}

func TestLimitRangeDefaults(t *testing.T) {
	lr := LimitRange{Name: "lr", Limits: []LimitRangeItem{{Type: LimitTypeContainer,
		Default: cpuMem(500, 512*mi), DefaultRequest: cpuMem(100, -1)}}}.WithDefaults()
	require.Equal(t, cpuMem(100, 512*mi), lr.Limits[0].DefaultRequest, "a default request missing takes the default limit")

	tests := []struct {
		name             string
		in               Container
		wantReq, wantLim ResourceList
	}{
		{"nothing set", container("a", nil, nil), cpuMem(100, 512*mi), cpuMem(500, 512*mi)},
		{"a request set", container("a", cpuMem(200, -1), nil), cpuMem(200, 512*mi), cpuMem(500, 512*mi)},
		{"a limit set, its request defaulted from it before", container("a", cpuMem(1000, -1), cpuMem(1000, -1)), cpuMem(1000, 512*mi), cpuMem(1000, 512*mi)},
		{"zero is set", container("a", cpuMem(0, 0), cpuMem(0, -1)), cpuMem(0, 0), cpuMem(0, 512*mi)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &PodResources{Containers: []Container{tt.in, {Name: "init", Init: true}}}
			before := in.Clone()
			out, changed := lr.Default(in)
			require.True(t, changed)
			require.Equal(t, before, in, "the pod's resources are not changed, only replaced")
			require.Equal(t, tt.wantReq, out.Containers[0].Resources.Requests)
			require.Equal(t, tt.wantLim, out.Containers[0].Resources.Limits)
			require.Equal(t, cpuMem(100, 512*mi), out.Containers[1].Resources.Requests, "init containers too")
		})
	}
	full := &PodResources{Containers: []Container{container("a", cpuMem(1, 1), cpuMem(1, 1))}}
	out, changed := lr.Default(full)
	require.False(t, changed)
	require.Same(t, full, out)
}

func TestLimitRangeCheck(t *testing.T) {
	lr := LimitRange{Name: "lr", Limits: []LimitRangeItem{
		{Type: LimitTypeContainer, Min: cpuMem(100, -1), Max: cpuMem(1000, 1024*mi), MaxLimitRequestRatio: ResourceList{ResourceCPU: 2000}},
		{Type: LimitTypePod, Max: cpuMem(1500, -1)},
	}}
	tests := []struct {
		name string
		in   []Container
		want []string
	}{
		{"within", []Container{container("a", cpuMem(500, 1), cpuMem(1000, 1))}, nil},
		{"below min", []Container{container("a", cpuMem(50, -1), cpuMem(100, 1))}, []string{
			"minimum cpu usage per Container is 100m, but request is 50m",
			"cpu max limit to request ratio per Container is 2, but provided ratio is 2.000000"}[:1]},
		{"no limit", []Container{container("a", cpuMem(500, -1), nil)}, []string{
			"maximum cpu usage per Container is 1.  No limit is specified",
			"maximum memory usage per Container is 1Gi.  No limit is specified",
			"cpu max limit to request ratio per Container is 2, but no limit is specified or limit is 0",
			"maximum cpu usage per Pod is 1500m.  No limit is specified"}},
		{"above max and ratio", []Container{container("a", cpuMem(300, -1), cpuMem(2000, 2048*mi))}, []string{
			"maximum cpu usage per Container is 1, but limit is 2",
			"maximum memory usage per Container is 1Gi, but limit is 2Gi",
			"cpu max limit to request ratio per Container is 2, but provided ratio is 6.666667",
			"maximum cpu usage per Pod is 1500m, but limit is 2"}},
		{"pod max over two containers", []Container{container("a", cpuMem(500, -1), cpuMem(1000, 1)), container("b", cpuMem(500, -1), cpuMem(1000, 1))},
			[]string{"maximum cpu usage per Pod is 1500m, but limit is 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Equal(t, tt.want, lr.Check(&PodResources{Containers: tt.in}))
		})
	}
	require.Equal(t, "one", AggregateMessage([]string{"one"}))
	require.Equal(t, "[one, two]", AggregateMessage([]string{"one", "two"}))
}

func TestLimitRangeValidate(t *testing.T) {
	tests := []struct {
		item LimitRangeItem
		want string
	}{
		{LimitRangeItem{Type: "Node"}, `limits[0].type: "Node" is not Container, Pod or PersistentVolumeClaim`},
		{LimitRangeItem{Type: LimitTypePod, Default: cpuMem(1, -1)}, "limits[0].default: may not be specified when type is Pod"},
		{LimitRangeItem{Type: LimitTypeContainer, Min: ResourceList{ResourceCPU: -1}}, "limits[0].min.cpu: must be greater than or equal to 0"},
		{LimitRangeItem{Type: LimitTypeContainer, Min: cpuMem(2000, -1), Max: cpuMem(1000, -1)}, "min value 2 is greater than max value 1"},
		{LimitRangeItem{Type: LimitTypeContainer, Default: cpuMem(2000, -1), Max: cpuMem(1000, -1)}, "default value 2 is greater than max value 1"},
		{LimitRangeItem{Type: LimitTypeContainer, Default: cpuMem(100, -1), DefaultRequest: cpuMem(200, -1)}, "default request value 200m is greater than default limit value 100m"},
		{LimitRangeItem{Type: LimitTypeContainer, MaxLimitRequestRatio: ResourceList{ResourceCPU: 500}}, "ratio 500m is less than 1"},
		{LimitRangeItem{Type: LimitTypeContainer, Min: cpuMem(500, -1), Max: cpuMem(1000, -1), MaxLimitRequestRatio: ResourceList{ResourceCPU: 3000}}, "ratio 3 is greater than max/min = 2.000000"},
	}
	for _, tt := range tests {
		lr := LimitRange{Name: "lr", Limits: []LimitRangeItem{tt.item}}
		err := lr.Validate()
		require.ErrorIs(t, err, ErrLimitRange, tt.want)
		require.ErrorContains(t, err, tt.want)
	}
	ok := LimitRange{Name: "lr", Limits: []LimitRangeItem{{Type: LimitTypeContainer, Min: cpuMem(100, -1), Max: cpuMem(1000, -1), Default: cpuMem(500, -1)}}}
	require.NoError(t, ok.Validate())
}

func TestPodResourcesTotals(t *testing.T) {
	res := &PodResources{
		Containers: []Container{
			container("app", cpuMem(1000, 1*mi), cpuMem(2000, -1)),
			{Name: "sidecar", Sidecar: true, Init: true, Resources: ResourceRequirements{Requests: cpuMem(100, 1*mi), Limits: cpuMem(100, -1)}},
			{Name: "init", Init: true, Resources: ResourceRequirements{Requests: cpuMem(3000, -1)}},
		},
		Overhead: cpuMem(10, 2*mi),
	}
	require.Equal(t, cpuMem(3110, 4*mi), res.Requests(), "the init container and the sidecar beside it outweigh the containers, plus overhead")
	require.Equal(t, cpuMem(2110, -1), res.Limits(), "overhead only on limits that are set")
	res.PodLevel = &ResourceRequirements{Requests: cpuMem(500, -1)}
	require.Equal(t, cpuMem(510, 4*mi), res.Requests())
}
