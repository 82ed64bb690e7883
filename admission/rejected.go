package admission

import (
	"errors"
	"fmt"

	"github.com/gangsim/gangsim/cluster"
)

// ErrRejected is wrapped by every RejectedError: a pod its namespace's
// admission refuses to create.
var ErrRejected = errors.New("gangsim: pod refused at admission")

// RejectedError is a pod the API server's admission refused to create:
// Reason is its message, in the API server's words (`pods "web-3" is
// forbidden: exceeded quota: compute, requested: requests.cpu=1, used:
// requests.cpu=2, limited: requests.cpu=2`).
type RejectedError struct {
	Pod    cluster.PodKey
	Reason string
}

// Error returns the reason, prefixed as the scheduler's errors are.
func (e *RejectedError) Error() string { return "gangsim: " + e.Reason }

// Unwrap returns ErrRejected.
func (e *RejectedError) Unwrap() error { return ErrRejected }

// reject refuses p with a message formatted after the API server's.
func reject(p *cluster.Pod, format string, args ...any) *RejectedError {
	return &RejectedError{Pod: cluster.MakePodKey(p.Namespace, p.Name), Reason: fmt.Sprintf(format, args...)}
}

// namespaceOf returns the namespace the API server creates p in.
func namespaceOf(p *cluster.Pod) string {
	if p.Namespace == "" {
		return cluster.DefaultNamespace
	}
	return p.Namespace
}
