// Package rxscan runs Go regexps faster without changing what they match:
// a literal prefilter read off a regexp's syntax skips texts that cannot
// match (MatchString, FindStringSubmatch, ...), and a start scan tries the
// regexp, anchored, only where a match can start (derived from the syntax,
// or from a hand-written candidate finder: NewStartScan). The regexp stays
// the single definition of a match; every shortcut is compared with it by
// tests and fuzz targets, here for the derivation and in each caller for its
// own patterns and hand-written finders (SetFilter, SetStartCheck).
package rxscan
