package parse

import (
	"reflect"
	"testing"
)

func TestFrontMatterText(t *testing.T) {
	n, err := Parse("/v/n.md", []byte("---\nid: 4f2a\ntitle: Bees\ntags: [garden]\naliases: [Apis, honey bees]\ndesc: Keeping bees in the back garden\nsummary: not this one\nupdated: 1599506314235\nstatus: In Progress\nsource: https://example.org/bees\nsee: [hives, 'smoker use']\n---\n# Bees\n\nbody\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := FrontMatterText(n.FrontMatter)
	want := TextFields{
		Aliases:     []string{"Apis", "honey bees"},
		Description: "Keeping bees in the back garden",
		Other:       []string{"hives", "smoker use", "In Progress"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
