package lexical_test

import (
	"fmt"

	"github.com/memd-dev/memd/rank/lexical"
)

func ExampleTerms() {
	fmt.Println(lexical.Terms("The runners' notes on Café Zürich"))
	fmt.Println(lexical.Terms("東京の天気"))
	// Output:
	// [runner note cafe zurich]
	// [東 東京 京 京の の天 天 天気 気]
}
