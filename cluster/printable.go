package cluster

import (
	"fmt"
	"strings"
)

// Printable returns s with its control characters (C0 but the newline and
// the tab, DEL, and C1) written as Go escapes (\x1b, \u009b): a message
// that echoes a name, a value or a file name from an input cannot drive
// the terminal that shows it. Every error message of the project's
// loaders and validators passes through it.
func Printable(s string) string { return printable(s, false) }

// PrintableLine is Printable with newlines and tabs escaped too, for a
// name or a path that must stay on its line.
func PrintableLine(s string) string { return printable(s, true) }

func printable(s string, line bool) string {
	unsafe := func(r rune) bool {
		return r < 0x20 && (line || r != '\n' && r != '\t') || r == 0x7f || r >= 0x80 && r <= 0x9f
	}
	if !strings.ContainsFunc(s, unsafe) {
		return s // the common case: no copy
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !unsafe(r):
			b.WriteRune(r)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
