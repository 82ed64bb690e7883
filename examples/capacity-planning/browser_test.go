package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The browser test needs Chromium: it runs when this variable is set
// (.ci/run sets it, installing Chromium when missing). The screenshot
// goes to $GANGSIM_BROWSER_OUT when set, else to a temporary folder.
const (
	browserTestEnv = "GANGSIM_BROWSER_TEST"
	browserOutEnv  = "GANGSIM_BROWSER_OUT"
)

// chromium finds the browser.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path
		}
	}
	t.Fatalf("%s is set, but no chromium is on the PATH (apt-get install chromium)", browserTestEnv)
	return ""
}

// headless runs the browser on a page with args and returns its standard
// output and error.
func headless(t *testing.T, browser, page string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	all := append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0", "--virtual-time-budget=15000"}, args...)
	cmd := exec.CommandContext(ctx, browser, append(all, "file://"+page)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	require.NoError(t, cmd.Run(), errOut.String())
	return out.String(), errOut.String()
}

var (
	consoleLine = regexp.MustCompile(`(?m)^.*:CONSOLE[:(].*$`)
	plotsState  = regexp.MustCompile(`data-plots="([^"]*)"`)
	pageHeight  = regexp.MustCompile(`data-height="(\d+)"`)
)

// The default day's report.html, opened in headless Chromium: it logs
// nothing to the console (no script error, nothing the page's policy
// blocked), every figure is drawn with its font loaded, and the
// screenshot of the whole page shows the figures' colours.
func TestReportInBrowser(t *testing.T) {
	if os.Getenv(browserTestEnv) == "" {
		t.Skipf("set %s=1 to open the report in headless Chromium", browserTestEnv)
	}
	browser := chromium(t)
	dir := t.TempDir()
	_, errOut, code := runCommand(t, nil, "-out", dir)
	require.Equal(t, 0, code, errOut)
	page := filepath.Join(dir, htmlName)
	html, err := os.ReadFile(page)
	require.NoError(t, err)
	figures := strings.Count(string(html), `<figure class="plot"`)
	require.GreaterOrEqual(t, figures, 5, "allocation, pending, waits and one per domain key")

	const width = 1366
	dom, log := headless(t, browser, page, fmt.Sprintf("--window-size=%d,900", width), "--dump-dom")
	assert.Empty(t, consoleLine.FindAllString(log, -1), "console messages")
	state := plotsState.FindStringSubmatch(dom)
	require.NotNil(t, state, "the page's script did not run")
	require.Equal(t, fmt.Sprintf("ready %d/%d", figures, figures), state[1])
	m := pageHeight.FindStringSubmatch(dom)
	require.NotNil(t, m)
	height, err := strconv.Atoi(m[1])
	require.NoError(t, err)

	out := os.Getenv(browserOutEnv)
	if out == "" {
		out = t.TempDir()
	}
	shot := filepath.Join(out, "report.png")
	_, log = headless(t, browser, page, fmt.Sprintf("--window-size=%d,%d", width, height), "--screenshot="+shot)
	assert.Empty(t, consoleLine.FindAllString(log, -1), "console messages")
	t.Logf("screenshot of %s (%d figures): %s", page, figures, shot)
	img := decodePNG(t, shot)
	assert.Equal(t, width, img.Bounds().Dx())
	assert.Equal(t, height, img.Bounds().Dy(), "the whole page")
	// gonum/plot's first three colours: allocated, capacity, fragmented
	for _, c := range []struct{ r, g, b uint8 }{{0xF1, 0x5A, 0x60}, {0x7A, 0xC3, 0x6A}, {0x5A, 0x9B, 0xD4}} {
		assert.Greater(t, pixels(img, c.r, c.g, c.b), 2000, "the figures' #%02X%02X%02X", c.r, c.g, c.b)
	}
}

func decodePNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	return img
}

// pixels counts the pixels of a colour, give or take antialiasing.
func pixels(img image.Image, r, g, b uint8) int {
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d > -12 && d < 12 }
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr, r) && near(pg, g) && near(pb, b) {
				n++
			}
		}
	}
	return n
}
