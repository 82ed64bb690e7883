package scenario

import (
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Scenario runs share only read-only data: the golden scenarios run at
// once in goroutines, each Scenario several times concurrently (each
// Scheduler adopts its pods' data and never writes to it), and every run
// gives the bytes a run alone gives. Run it under go test -race (.ci/run
// does).
func TestScenarioRunsInParallel(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	require.NoError(t, err)
	files = append(files, "testdata/kube/cluster.yaml", "testdata/kube/workloads.yaml")
	type job struct {
		sc   *Scenario
		want string
	}
	var jobs []job
	for _, f := range files {
		sc, err := Load(f)
		require.NoError(t, err, f)
		sc.Config.CheckInvariants = true
		res, err := sc.Run()
		require.NoError(t, err, f)
		out, err := res.JSON()
		require.NoError(t, err)
		jobs = append(jobs, job{sc, string(out)})
	}
	const copies = 3
	var wg sync.WaitGroup
	errs := make(chan error, len(jobs)*copies)
	for _, j := range jobs {
		for range copies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res, err := j.sc.Run()
				if err != nil {
					errs <- err
					return
				}
				out, _ := res.JSON()
				if string(out) != j.want {
					errs <- &FieldError{File: j.sc.Name, Err: errRunsDiffer}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

var errRunsDiffer = errors.New("a run in parallel differs from the run alone")
