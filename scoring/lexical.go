package scoring

import (
	"strconv"
	"strings"
)

// The offline lexical judge: a stand-in for a model judge when no judge
// endpoint is configured. It compares stemmed content words (LoCoMo's
// normalisation and NLTK-identical stems, stop words dropped) and is
// labelled heuristic in every table; its numbers are not the benchmarks'.

// lexicalStop are function words that carry no answer content.
var lexicalStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`i me my myself we our ours you your yours he him his she her hers it its
		they them their what which who whom this that these those am is are was were be been being have has had
		do does did doing but if or because as until while of at by for with about against between into through
		during before after above below to from up down in out on off over under again further then once here
		there when where why how all any both each few more most other some such no nor not only own same so than
		too very s t can will just don should now would could also yes user assistant response answer llm
		mention mentions mentioned state states stated include includes including provide provides`) {
		m[Stem(w)] = true
	}
	return m
}()

// contentTokens are the stemmed, normalised non-stop-word tokens of s.
func contentTokens(s string) []string {
	var out []string
	for _, t := range LoCoMoTokens(s) {
		if !lexicalStop[t] {
			out = append(out, t)
		}
	}
	return out
}

// lexicalRecall is the share of the reference's content tokens (as a
// multiset) found in the response; numbers match within tol (LongMemEval's
// off-by-one allowance for temporal questions uses tol 1). A reference
// without content tokens has recall 0.
func lexicalRecall(reference, response string, tol float64) float64 {
	r, _ := lexicalMatch(reference, response, tol)
	return r
}

// lexicalMatch is lexicalRecall plus whether every number of the reference
// was matched: a wrong count or date fails however many words agree.
func lexicalMatch(reference, response string, tol float64) (recall float64, numbersOK bool) {
	ref := contentTokens(reference)
	if len(ref) == 0 {
		return 0, true
	}
	have := map[string]int{}
	var nums []float64
	for _, t := range contentTokens(response) {
		have[t]++
		if v, err := strconv.ParseFloat(t, 64); err == nil {
			nums = append(nums, v)
		}
	}
	hit := 0
	numbersOK = true
	for _, t := range ref {
		if have[t] > 0 {
			have[t]--
			hit++
			continue
		}
		v, err := strconv.ParseFloat(t, 64)
		if err != nil {
			continue
		}
		found := false
		for _, n := range nums {
			if tol > 0 && n >= v-tol && n <= v+tol {
				found = true
				break
			}
		}
		if found {
			hit++
		} else {
			numbersOK = false
		}
	}
	return float64(hit) / float64(len(ref)), numbersOK
}

// lexicalCorrect is the lexical judge's verdict: enough of the reference's
// content, and all of its numbers.
func lexicalCorrect(reference, response string, tol, threshold float64) bool {
	r, ok := lexicalMatch(reference, response, tol)
	return ok && r >= threshold
}

// abstentionCues are phrases with which an answer declines for lack of
// information.
var abstentionCues = []string{
	"not mentioned", "no information", "not available", "don't know", "do not know", "cannot", "can't",
	"unable to", "not specified", "no record", "not provided", "does not mention", "doesn't mention",
	"not sure", "no mention", "unanswerable", "not enough information", "isn't mentioned", "is not mentioned",
	"never mentioned", "did not mention", "didn't mention", "not stated", "unknown",
}

// lexicalAbstains reports whether a response declines to answer.
func lexicalAbstains(response string) bool {
	p := strings.ReplaceAll(pyLower(response), "\u2019", "'")
	for _, c := range abstentionCues {
		if strings.Contains(p, c) {
			return true
		}
	}
	return false
}
