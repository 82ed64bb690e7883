package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gangsim/gangsim/scenario"
	"github.com/gangsim/gangsim/whatif"
)

// sweepWorker runs one variant, numbered by the completion index. It
// prints nothing but its line: kubectl logs gathers both streams.
func (a *app) sweepWorker() error {
	sc, err := a.loadQuietly()
	if err != nil {
		return err
	}
	i, err := whatif.CompletionIndex(os.Getenv, len(a.cfg.variants))
	if err != nil {
		return err
	}
	line, err := whatif.RunIndex(sc, a.cfg.variants, i, a.cfg.domainKeys)
	if err != nil {
		return err
	}
	out, err := line.MarshalLine()
	if err != nil {
		return err
	}
	_, err = a.stdout.Write(out)
	return err
}

// mountPath is where the Job mounts the scenario files.
const mountPath = "/scenarios"

// writeJob writes the -variant sweep as an Indexed Job whose completions
// run this program with -sweep-worker on the same inputs: every file the
// paths stand for (folders expanded), in the order they merge.
func (a *app) writeJob() error {
	sc, err := a.load()
	if err != nil {
		return err // a sweep of an invalid scenario would fail in every completion
	}
	for _, v := range a.cfg.variants {
		if _, err := v.Apply(sc); err != nil {
			return err // it would fail in its completion
		}
	}
	paths, err := scenario.InputFiles(a.cfg.files)
	if err != nil {
		return err
	}
	args := append([]string{"-sweep-worker", "-domains", strings.Join(a.cfg.domainKeys, ",")}, a.cfg.loadArgs...) // the inputs load as here
	for _, v := range a.cfg.variants {
		args = append(args, "-variant", v.Name)
	}
	var files []whatif.JobFile
	taken := map[string]bool{}
	for i, p := range paths {
		data, err := scenario.ReadFile(p) // bounded as the load was
		if err != nil {
			return err
		}
		files = append(files, whatif.JobFile{Name: fileKey(filepath.Base(p), i, taken), Data: data})
	}
	var b bytes.Buffer
	spec := whatif.JobSpec{Name: a.cfg.jobName, Image: a.cfg.jobImage, Args: args, Completions: len(a.cfg.variants),
		MountPath: mountPath, Files: files, Requests: a.cfg.job.requests(), Limits: a.cfg.job.limits()}
	if err := whatif.WriteIndexedJob(&b, spec); err != nil {
		return err
	}
	if err := os.WriteFile(a.cfg.writeJob, b.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "Wrote %s: an Indexed Job of %s%s.\n"+
		"Run it:   kubectl create -f %s   (or kubectl apply --server-side -f; a client-side apply\n"+
		"          refuses objects over 256 KiB, which it copies into an annotation)\n"+
		"Collect:  kubectl logs -l job-name=%s --tail=-1 > lines.jsonl\n"+
		"Merge:    capacity-planning -merge lines.jsonl\n",
		a.cfg.writeJob, completions(len(a.cfg.variants)), configMapsNote(spec), a.cfg.writeJob, a.cfg.jobName)
	return nil
}

// fileKey names input i in the ConfigMaps: its file name, with what a
// ConfigMap key may not hold replaced by '-', and prefixed with its
// position when another input took the name (a ".gz" added included).
func fileKey(base string, i int, taken map[string]bool) string {
	key := strings.Map(func(r rune) rune {
		if 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, base)
	if taken[key] || taken[key+".gz"] || !whatif.IsConfigMapKey(key+".gz") {
		key = fmt.Sprintf("%d-%s", i+1, key)
	}
	taken[key], taken[key+".gz"], taken[strings.TrimSuffix(key, ".gz")] = true, true, true
	return key
}

// completions counts a Job's completions in words.
func completions(n int) string {
	if n == 1 {
		return "1 completion"
	}
	return fmt.Sprintf("%d completions", n)
}

// configMapsNote says how the scenario files travel.
func configMapsNote(spec whatif.JobSpec) string {
	names, _ := spec.ConfigMaps() // written: it cannot fail
	size := 0
	for _, f := range spec.Files {
		size += len(f.Data)
	}
	switch len(names) {
	case 0:
		return ", on the embedded default"
	case 1:
		return fmt.Sprintf(", its %d scenario files (%d bytes) in ConfigMap %s", len(spec.Files), size, names[0])
	}
	return fmt.Sprintf(", its %d scenario files (%d bytes) in %d ConfigMaps (%s), each within the API server's 1 MiB of data",
		len(spec.Files), size, len(names), strings.Join(names, ", "))
}

// mergeLines merges sweep lines into a comparison.
func (a *app) mergeLines() error {
	var r io.Reader = os.Stdin
	if a.cfg.merge != "-" {
		f, err := os.Open(a.cfg.merge)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	}
	c, err := whatif.Merge(r)
	if err != nil {
		return fmt.Errorf("-merge %s: %w", a.cfg.merge, err)
	}
	return a.printComparison(c)
}
