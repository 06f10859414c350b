//go:build tools

// Package main pins the prescribed dependencies until every one is imported by real code.
package main

import (
	_ "github.com/blevesearch/bleve/v2"
	_ "github.com/dlclark/regexp2"
	_ "github.com/go-viper/mapstructure/v2"
	_ "github.com/pkoukk/tiktoken-go"
	_ "github.com/sashabaranov/go-openai"
	_ "github.com/schollz/progressbar/v3"
	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
	_ "github.com/viterin/vek"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/term"
	_ "golang.org/x/text/unicode/norm"
	_ "gonum.org/v1/plot"
	_ "gopkg.in/yaml.v3"
)
