package cluster

import (
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"
)

// The hand-written name checks agree with the API server's patterns on
// random strings over the letters that matter, lengths included.
func TestDNSNamesAgreeWithPatterns(t *testing.T) {
	label := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	subdomain := regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	rng := rand.New(rand.NewPCG(3, 5))
	alphabet := "az09-.A_ \x1b"
	for range 100_000 {
		b := make([]byte, rng.IntN(8))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		require.Equal(t, label.MatchString(s), NameProblem(s, true) == "", "%q", s)
		require.Equal(t, subdomain.MatchString(s), NameProblem(s, false) == "", "%q", s)
	}
	long := make([]byte, 254)
	for i := range long {
		long[i] = 'a'
	}
	require.Empty(t, NameProblem(string(long[:63]), true))
	require.NotEmpty(t, NameProblem(string(long[:64]), true))
	// the subdomain pattern bounds the whole name, not each label
	require.Empty(t, NameProblem(string(long[:253]), false))
	require.NotEmpty(t, NameProblem(string(long[:254]), false))
}

// Every kind the Go API takes refuses a name the API server would, with
// the name quoted: a control character never reaches a message raw.
func TestObjectNamesCheckedAsTheAPIServerDoes(t *testing.T) {
	bad := "web\x1b[31m"
	errs := []error{
		(&Node{Name: bad}).Validate(),
		(&Pod{Name: bad}).Validate(),
		(&Pod{Name: "ok", Namespace: "Team.A"}).Validate(),
		(&PodDisruptionBudget{Name: bad}).Validate(),
		new(PriorityClasses).Add(PriorityClass{Name: bad}),
		(&LimitRange{Name: bad}).Validate(),
		(&ResourceQuota{Name: bad}).Validate(),
		NewCache().SetNamespace(Namespace{Name: "a.b"}),
	}
	for i, err := range errs {
		require.Error(t, err, i)
		require.NotContains(t, err.Error(), "\x1b", i)
		require.Regexp(t, `not a DNS (label|subdomain)`, err.Error(), i)
	}
}

func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain":          "plain",
		"a\x1b[31mb":     `a\x1b[31mb`,
		"bell\x07":       `bell\x07`,
		"csi\u009b2J":    `csi\u009b2J`,
		"del\x7f":        `del\x7f`,
		"two\nlines\tok": "two\nlines\tok",
		"ünïcode, 名前":    "ünïcode, 名前",
	} {
		require.Equal(t, want, Printable(in), "%q", in)
	}
	require.Equal(t, `a\x0ab\x09c`, PrintableLine("a\nb\tc"))
}
