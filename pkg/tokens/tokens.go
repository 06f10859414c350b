// Package tokens counts text in the answer model's tokens, the unit every
// evidence budget is expressed in.
package tokens

// Counter counts tokens of a text. Implementations are safe for concurrent use.
type Counter interface {
	Count(text string) int
}
