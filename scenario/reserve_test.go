package scenario

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// Both file formats read a profile's reserve point: a plugin that is no
// Reserve plugin is refused there, and disabling every default one is
// accepted (there are none).
func TestProfilesReadTheReservePoint(t *testing.T) {
	const notReserve = `plugin "NodeName" does not extend the reserve extension point`
	for _, tt := range []struct{ name, text, want string }{
		{"scenario", "config: {profiles: [{plugins: {reserve: {enabled: [{name: NodeName}]}}}]}\n", notReserve},
		{"scenario, disabled", "config: {profiles: [{plugins: {reserve: {disabled: [{name: \"*\"}]}}}]}\n", ""},
		{"KubeSchedulerConfiguration", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
			"profiles: [{plugins: {reserve: {enabled: [{name: NodeName}]}}}]\n", "KubeSchedulerConfiguration: profiles[0].plugins.reserve.enabled: " + notReserve},
		{"KubeSchedulerConfiguration, disabled", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n" +
			"profiles: [{plugins: {reserve: {disabled: [{name: \"*\"}]}}}]\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			sc, err := Parse("in.yaml", []byte(tt.text))
			if tt.want != "" {
				require.ErrorContains(t, err, tt.want)
				return
			}
			require.NoError(t, err)
			require.Empty(t, sc.Warnings, "reserve is read, not warned about")
			require.Equal(t, "*", sc.Config.Profiles[0].Plugins.Reserve.Disabled[0].Name)
		})
	}
}
