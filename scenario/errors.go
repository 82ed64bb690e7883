package scenario

import (
	"errors"

	"github.com/gangsim/gangsim/scenario/internal/schema"
)

// MaxErrors is how many errors a load reports at most (Errors); beyond it
// a last line says how many more there were.
const MaxErrors = schema.MaxErrors

// Errors is what a load that found several mistakes returns: every file's
// errors in input order, each object's first, up to MaxErrors (More
// counts the rest), so that a folder is fixed in one pass rather than
// one run per mistake. A load with one mistake returns that error alone.
// Loading stops at the first stage that found any (reading the files,
// the Kubernetes objects, then each step of the build, every file's
// first error in it), and at a limit of nodes or pods. errors.As finds
// each *FieldError, and errors.Is ErrScenario.
type Errors struct {
	List []error
	More int
}

// Error renders every error on its own line, then "and N more errors".
func (e *Errors) Error() string {
	return (&schema.Errors{List: e.List, More: e.More}).Error()
}

// Unwrap returns the errors.
func (e *Errors) Unwrap() []error { return e.List }

// loadErrors turns the errors a load collected into its error: nil, the
// one error, or *Errors; the importer's become FieldErrors.
func loadErrors(errs *schema.Errors) error {
	err := errs.Err()
	if err == nil {
		return nil
	}
	var list *schema.Errors
	if !errors.As(err, &list) {
		return kubeError(err)
	}
	out := &Errors{More: list.More}
	for _, e := range list.List {
		out.List = append(out.List, kubeError(e))
	}
	return out
}

// addAll adds err to errs: each of its errors when it is a list.
func addAll(errs *schema.Errors, err error) bool {
	var list *schema.Errors
	if errors.As(err, &list) {
		ok := true
		for _, e := range list.List {
			ok = errs.Add(e)
		}
		errs.More += list.More
		return ok
	}
	return errs.Add(err)
}
