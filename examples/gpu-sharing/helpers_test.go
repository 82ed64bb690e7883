package main

import (
	"os"
	"path/filepath"
	"testing"
)

// openbDirVar names the environment variable holding the folder of the
// Alibaba openb CSV files. The trace is research-use data: it is read at
// run time, never committed; without the variable the tests that need it
// skip.
const openbDirVar = "GANGSIM_OPENB_DIR"

// openb returns the GPU nodes and the default pods of the trace.
func openb(tb testing.TB) ([]Node, []Pod) {
	tb.Helper()
	dir := os.Getenv(openbDirVar)
	if dir == "" {
		tb.Skipf("set %s to the openb trace folder to run this", openbDirVar)
	}
	nodes, err := LoadNodes(filepath.Join(dir, "openb_node_list_gpu_node.csv"))
	if err != nil {
		tb.Skipf("trace not available: %v", err)
	}
	pods, err := LoadPods(filepath.Join(dir, "openb_pod_list_default.csv"))
	if err != nil {
		tb.Fatal(err)
	}
	return nodes, pods
}

// state is a node state builder: state(cpu, free...) with memory to spare.
func state(cpu int64, free ...int32) NodeState {
	s := NodeState{CPU: cpu, Mem: 1 << 20, GPUs: len(free), Model: "T4"}
	copy(s.Free[:], free)
	return s
}

func (s NodeState) model(m string) NodeState { s.Model = m; return s }

// share is a pod of one GPU share; whole a pod of n whole GPUs; cpuOnly
// a pod without GPUs.
func share(cpu, m int64) *Pod     { return &Pod{Name: "p", MilliCPU: cpu, NumGPU: 1, GPUMilli: m} }
func whole(cpu int64, n int) *Pod { return &Pod{Name: "p", MilliCPU: cpu, NumGPU: n, GPUMilli: milli} }
func cpuOnly(cpu int64) *Pod      { return &Pod{Name: "p", MilliCPU: cpu} }
