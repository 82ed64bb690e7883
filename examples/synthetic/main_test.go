package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/scenario/synthetic"
)

func TestWritesALoadableFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.json")
	require.NoError(t, run([]string{"-size", "small", "-seed", "3", "-o", path}, &bytes.Buffer{}, &bytes.Buffer{}))
	sc, err := scenario.Load(path)
	require.NoError(t, err)
	require.Len(t, sc.Nodes, 100)

	var stdout bytes.Buffer
	require.NoError(t, run([]string{"-size", "small", "-seed", "3", "-pods", "400"}, &stdout, &bytes.Buffer{}))
	sc, err = scenario.Parse("stdout.json", stdout.Bytes())
	require.NoError(t, err)
	require.InDelta(t, 400, len(sc.Pods), 16)
}

func TestMisuse(t *testing.T) {
	require.ErrorIs(t, run([]string{"-size", "huge"}, &bytes.Buffer{}, &bytes.Buffer{}), synthetic.ErrConfig)
	require.ErrorIs(t, run([]string{"-nodes", "-3"}, &bytes.Buffer{}, &bytes.Buffer{}), synthetic.ErrConfig)
	require.ErrorIs(t, run([]string{"extra"}, &bytes.Buffer{}, &bytes.Buffer{}), errUsage)
	require.ErrorIs(t, run([]string{"-nope"}, &bytes.Buffer{}, &bytes.Buffer{}), errUsage)
}
