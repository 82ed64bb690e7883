package kube

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gangsim/gangsim"
)

func TestParseRunTime(t *testing.T) {
	for _, tt := range []struct {
		text string
		want time.Duration
		err  string
	}{
		{"30m", 30 * time.Minute, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"1.5h", 90 * time.Minute, ""},
		{"90s", 90 * time.Second, ""},
		{"0s", 0, `"0s" is not a positive duration`},
		{"-5m", 0, `"-5m" is not a positive duration`},
		{"30", 0, `"30" is not a duration like 30m or 1h30m`},
		{"30 minutes", 0, `"30 minutes" is not a duration like 30m or 1h30m`},
		{"876001h", 0, `"876001h" is beyond the largest simulated time`},
	} {
		t.Run(tt.text, func(t *testing.T) {
			d, err := parseRunTime(tt.text)
			if tt.err != "" {
				require.ErrorContains(t, err, tt.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, d)
		})
	}
}

// FuzzParseRunTime: the annotation's value is a positive duration within
// the simulation's range, or an error.
func FuzzParseRunTime(f *testing.F) {
	for _, s := range []string{"30m", "1h30m", "0s", "-1s", "1e3h", "9223372036854775807ns", "1.5h", "", "h", "+5m"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseRunTime(s)
		if err == nil && !(d > 0 && d <= gangsim.MaxSimulatedTime) {
			t.Fatalf("parseRunTime(%q) = %v", s, d)
		}
		if err != nil && d != 0 {
			t.Fatalf("parseRunTime(%q) = %v with an error", s, d)
		}
	})
}
