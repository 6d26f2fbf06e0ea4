package memory

import (
	"slices"
	"testing"
)

func TestLinkTargets(t *testing.T) {
	for _, c := range []struct {
		link    string
		names   []string
		heading string
	}{
		{"note", []string{"note"}, ""},
		{"note#Some Part", []string{"note"}, "Some Part"},
		{"note#part^block", []string{"note"}, "part"},
		{"note^block", []string{"note"}, ""},
		{"target|label", []string{"target", "label"}, ""},
		{"Label|dendron://vault/a.b#x", []string{"Label", "a.b"}, "x"},
		{"file:notes/a.org][description", []string{"notes/a.org"}, ""},
		{"beta::*Some Details][there", []string{"beta"}, "Some Details"},
		{"#only-a-heading", nil, "only-a-heading"},
		{"  ", nil, ""},
	} {
		names, heading := linkTargets(c.link)
		if !slices.Equal(names, c.names) || heading != c.heading {
			t.Errorf("linkTargets(%q) = %q %q, want %q %q", c.link, names, heading, c.names, c.heading)
		}
	}
}

func TestSlug(t *testing.T) {
	for s, want := range map[string]string{"Some Details": "some-details", "some-details": "some-details",
		"  Ünïcode & Co.  ": "ünïcode-co", "C++ / Go": "c-go"} {
		if got := slug(s); got != want {
			t.Errorf("slug(%q) = %q, want %q", s, got, want)
		}
	}
}
