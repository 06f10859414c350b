// Package config is arbor's typed configuration. Values come, highest first,
// from flags, ARBOR_* environment variables, a --config file, and the
// embedded configs/default.yaml, so the binary runs with no files present.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
	"gopkg.in/yaml.v3"
)

// Config is the whole effective configuration.
type Config struct {
	Models    Models    `mapstructure:"models" yaml:"models"`
	Answer    Answer    `mapstructure:"answer" yaml:"answer"`
	Judge     Judge     `mapstructure:"judge" yaml:"judge"`
	Cache     Cache     `mapstructure:"cache" yaml:"cache"`
	Retry     Retry     `mapstructure:"retry" yaml:"retry"`
	Run       Run       `mapstructure:"run" yaml:"run"`
	ArborMem  ArborMem  `mapstructure:"arbormem" yaml:"arbormem"`
	Baselines Baselines `mapstructure:"baselines" yaml:"baselines"`
	Bridges   Bridges   `mapstructure:"bridges" yaml:"bridges"`
	Report    Report    `mapstructure:"report" yaml:"report"`
	Serve     Serve     `mapstructure:"serve" yaml:"serve"`
	// PromptsDir overrides prompt templates file by file (<name>.tmpl).
	PromptsDir string `mapstructure:"prompts_dir" yaml:"prompts_dir"`
	// Source names where the config came from (file path or "embedded").
	Source string `mapstructure:"-" yaml:"-"`
	// Warnings are problems that do not stop a run but change what it
	// measures (an unset api_key_env variable, roles left offline beside
	// model-backed ones); commands print them at start.
	Warnings []string `mapstructure:"-" yaml:"-" json:"-"`
}

// Models maps each model role to its provider.
type Models struct {
	// Chat answers questions and runs memory operations (paper: one model
	// for both, appendix C.1).
	Chat      Role `mapstructure:"chat" yaml:"chat"`
	Judge     Role `mapstructure:"judge" yaml:"judge"`
	Embed     Role `mapstructure:"embed" yaml:"embed"`
	Rerank    Role `mapstructure:"rerank" yaml:"rerank"`
	Tokenizer Role `mapstructure:"tokenizer" yaml:"tokenizer"`
}

// Role is either the offline provider or a list of OpenAI-compatible endpoints.
type Role struct {
	// Provider is "local" (offline) or "openai" (the endpoints below).
	// Tokenizer also accepts "qwen3" (exact offline Qwen3 counts, the default).
	Provider  string     `mapstructure:"provider" yaml:"provider"`
	Endpoints []Endpoint `mapstructure:"endpoints" yaml:"endpoints,omitempty"`
	// Dim is the local embedder's dimension.
	Dim int `mapstructure:"dim" yaml:"dim,omitempty"`
	// API selects the rerank wire format: "vllm" ({query, documents}) or
	// "tei" ({query, texts}).
	API string `mapstructure:"api" yaml:"api,omitempty"`
	// Scores (rerank only) says what the server's scores are: "auto" (raw
	// logits from TEI, which is asked for raw_scores; probabilities from
	// vLLM's relevance_score), "logit" or "probability", for a server that
	// does otherwise (a vLLM pooler without its sigmoid, a TEI model with
	// one). `arbor doctor` measures it. ArborMem recovers the logit from a
	// probability (arbormem.ce_score).
	Scores string `mapstructure:"scores" yaml:"scores,omitempty"`
	// BatchSize bounds texts per embedding or rerank request.
	BatchSize int `mapstructure:"batch_size" yaml:"batch_size,omitempty"`
	// VerifyEvery (tokenizer with endpoints only): counts come from the
	// exact offline Qwen3 counter and one text in VerifyEvery is checked
	// against the server's /tokenize in the background; the first
	// disagreement switches to asking the server for every count. 0 asks
	// the server for every count (one round trip each).
	VerifyEvery int `mapstructure:"verify_every" yaml:"verify_every,omitempty"`
}

// RerankLogits reports whether the rerank server's scores are raw logits
// (models.rerank.scores; auto: TEI's raw scores are, vLLM's relevance_score
// is a probability).
func (r Role) RerankLogits() bool {
	if r.Scores == "auto" || r.Scores == "" {
		return r.API == "tei"
	}
	return r.Scores == "logit"
}

// NamedRole is a model role with its config key name ("chat", ...).
type NamedRole struct {
	Name string
	Role *Role
}

// Roles lists every role, in a fixed order, with its key name; the pointers
// refer into m.
func (m *Models) Roles() []NamedRole {
	return []NamedRole{{"chat", &m.Chat}, {"judge", &m.Judge}, {"embed", &m.Embed}, {"rerank", &m.Rerank}, {"tokenizer", &m.Tokenizer}}
}

// Role returns the role named name ("chat", "judge", "embed", "rerank",
// "tokenizer"), or nil.
func (m *Models) Role(name string) *Role {
	for _, r := range m.Roles() {
		if r.Name == name {
			return r.Role
		}
	}
	return nil
}

// Local reports whether the role uses the offline provider.
func (r Role) Local() bool { return r.Provider == "" || r.Provider == "local" || r.Provider == "qwen3" }

// Endpoint is one OpenAI-compatible server.
type Endpoint struct {
	URL   string `mapstructure:"url" yaml:"url"`
	Model string `mapstructure:"model" yaml:"model"`
	// APIKeyEnv names the environment variable holding the key.
	APIKeyEnv string `mapstructure:"api_key_env" yaml:"api_key_env,omitempty"`
	// APIKey may be given directly (prefer APIKeyEnv); never printed.
	APIKey      Secret        `mapstructure:"api_key" yaml:"api_key,omitempty"`
	MaxInflight int           `mapstructure:"max_inflight" yaml:"max_inflight"`
	Timeout     time.Duration `mapstructure:"timeout" yaml:"timeout"`
}

// Answer holds the shared answer settings (appendix C.1, Table "Shared settings").
type Answer struct {
	Temperature float64 `mapstructure:"temperature" yaml:"temperature"`
	// MaxTokens: "Maximum answer generation 512 tokens".
	MaxTokens int `mapstructure:"max_tokens" yaml:"max_tokens"`
	Seed      int `mapstructure:"seed" yaml:"seed"`
	// Budget: "Answer-time evidence at most 30,968 tokens".
	Budget int `mapstructure:"budget" yaml:"budget"`
	// MaxContext: "Maximum model context 40,960 tokens".
	MaxContext int `mapstructure:"max_context" yaml:"max_context"`
	// EnableThinking is passed as chat_template_kwargs.enable_thinking when
	// set, with every chat and judge call (memory operations, summaries and
	// judgements too): Qwen3's hybrid models think unless told not to.
	EnableThinking *bool `mapstructure:"enable_thinking" yaml:"enable_thinking,omitempty"`
	// Answerer picks "auto" (chat model when the chat role has endpoints,
	// else the extractive heuristic), "chat" or "heuristic".
	Answerer string `mapstructure:"answerer" yaml:"answerer"`
	// Template picks the answer template: "paper" (every system through the
	// paper's runtime assembly, one system anchor, directives and
	// answer-format lines; P:1282-1285 "the same ... answer template") or
	// "harness" (systems without their own layout through answer.tmpl, as
	// before issue 30). docs/FIDELITY.md.
	Template string `mapstructure:"template" yaml:"template"`
}

// Judge holds judge settings for LongMemEval, BEAM and LoCoMo's judge mode.
type Judge struct {
	Temperature float64 `mapstructure:"temperature" yaml:"temperature"`
	// MaxTokens: LongMemEval's judge generates at most 10 tokens.
	MaxTokens int `mapstructure:"max_tokens" yaml:"max_tokens"`
	// Mode picks "auto", "chat" or "lexical" (offline, labelled heuristic).
	Mode string `mapstructure:"mode" yaml:"mode"`
	// Parse picks how judge replies are read: "strict" (the verdict where
	// the prompt asks for it, anything else unparsed and scored 0) or
	// "official" (yes/no replies by LongMemEval's evaluate_qa.py rule,
	// 'yes' anywhere in the reply). docs/FIDELITY.md.
	Parse string `mapstructure:"parse" yaml:"parse"`
	// BEAMScoring picks BEAM's scoring protocol: "corrected" (the default:
	// the question is filled into the rubric prompt, partial credit kept) or
	// "official" (the released evaluation code's behaviour, quirks
	// included). The paper does not say which it used; tables name it.
	BEAMScoring string `mapstructure:"beam_scoring" yaml:"beam_scoring"`
	// AnswerInBundleMaxWords bounds the gold answers answer-in-bundle
	// recall is defined for (normalised words); longer golds describe an
	// answer rather than spell it. The paper reports no such figure.
	AnswerInBundleMaxWords int `mapstructure:"answer_in_bundle_max_words" yaml:"answer_in_bundle_max_words"`
}

// The BEAM scoring protocols (judge.beam_scoring).
const (
	BEAMCorrected = "corrected"
	BEAMOfficial  = "official"
)

// OfficialBEAM reports whether BEAM is scored as the released evaluation
// code does (judge.beam_scoring: official).
func (j Judge) OfficialBEAM() bool { return j.BEAMScoring == BEAMOfficial }

// Cache configures the on-disk response cache.
type Cache struct {
	Enabled bool `mapstructure:"enabled" yaml:"enabled"`
	// Dir defaults to <results>/.cache/llm.
	Dir string `mapstructure:"dir" yaml:"dir"`
}

// Retry configures retries of transient failures.
type Retry struct {
	MaxAttempts int           `mapstructure:"max_attempts" yaml:"max_attempts"`
	BaseDelay   time.Duration `mapstructure:"base_delay" yaml:"base_delay"`
	MaxDelay    time.Duration `mapstructure:"max_delay" yaml:"max_delay"`
	// FailuresToEject consecutive failures take an endpoint out of the pool;
	// it is re-probed after EjectFor.
	FailuresToEject int           `mapstructure:"failures_to_eject" yaml:"failures_to_eject"`
	EjectFor        time.Duration `mapstructure:"eject_for" yaml:"eject_for"`
	// DeadAfter gives a role up once every one of its endpoints has been
	// failing for this long (no success since): its calls then fail at
	// once, the run records the remaining questions as error samples, and
	// --retry-errors redoes them. 0 never gives up. Ours: the paper says
	// nothing of dead servers.
	DeadAfter time.Duration `mapstructure:"dead_after" yaml:"dead_after"`
}

// Run holds run-wide settings.
type Run struct {
	Results string `mapstructure:"results" yaml:"results"`
	// Workers bounds episodes in flight; 0 means the chat role's total
	// endpoint capacity (or the number of CPUs offline).
	Workers  int  `mapstructure:"workers" yaml:"workers"`
	Verbose  bool `mapstructure:"verbose" yaml:"verbose"`
	Progress bool `mapstructure:"progress" yaml:"progress"`
	Seed     int  `mapstructure:"seed" yaml:"seed"`
	// Bundles says what bundles.jsonl records beside each sample for the
	// HTML report's question browser: "full" (every evidence item with its
	// text, and the localization trace), "trace" (items without text) or
	// "off" (no file). It changes no result, so it is not fingerprinted.
	Bundles string `mapstructure:"bundles" yaml:"bundles" json:",omitempty"`
}

// Load resolves the configuration: embedded defaults, then file (if not
// ""), then ARBOR_* environment, then any flags in fs that were set and whose
// name maps to a key in flagKeys. Unknown keys and wrong types are errors that
// name the key and the source.
//
// With file "", ARBOR_CONFIG names the file. A shipped config named by its
// repository path (configs/a800.yaml) is read from the binary when the
// working directory has no such file. ARBOR_* variables that match
// no key are errors, as unknown keys in a file are.
func Load(file string, fs *pflag.FlagSet, flagKeys map[string]string) (*Config, error) {
	if file == "" {
		file = os.Getenv("ARBOR_CONFIG")
	}
	if file == "" {
		return LoadYAML(nil, "", fs, flagKeys)
	}
	b, err := readConfigFile(file)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", file, err)
	}
	return LoadYAML(b, file, fs, flagKeys)
}

// LoadYAML is Load with the file's content given (a run manifest's config,
// say); source names it in errors. nil data means the embedded default
// alone.
func LoadYAML(data []byte, source string, fs *pflag.FlagSet, flagKeys map[string]string) (*Config, error) {
	v := viper.New()
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(defaultYAML)); err != nil {
		return nil, fmt.Errorf("embedded configs/default.yaml: %w", err)
	}
	if data == nil {
		source = "embedded configs/default.yaml"
	} else {
		if err := checkKeys(data, source); err != nil {
			return nil, err
		}
		if err := v.MergeConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("config %s: %w", source, err)
		}
	}
	// viper's Unmarshal ignores environment variables for keys that are in
	// neither a file nor a default (../shared/notes/libraries.md), so every
	// key of the struct is bound explicitly.
	v.SetEnvPrefix("ARBOR")
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for _, k := range keys() {
		if err := v.BindEnv(k); err != nil {
			return nil, err
		}
	}
	if fs != nil {
		for flag, key := range flagKeys {
			if f := fs.Lookup(flag); f != nil && f.Changed {
				v.Set(key, f.Value.String())
			}
		}
	}
	where := fmt.Sprintf("config (%s, ARBOR_* environment, flags)", source)
	for _, k := range budgetKeys {
		if s, ok := v.Get(k).(string); ok {
			n, err := ParseBudget(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", where, k, err)
			}
			v.Set(k, n)
		}
	}
	var c Config
	err := v.Unmarshal(&c, func(dc *mapstructure.DecoderConfig) {
		dc.ErrorUnused = true
		dc.DecodeHook = mapstructure.ComposeDecodeHookFunc(
			durationHook,
			stringToStructuredHook,
			wholeNumberHook,
			endpointHook,
		)
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where, cleanDecodeErr(err))
	}
	c.Source = source
	if err := checkEnv(&c); err != nil {
		return nil, err
	}
	if err := c.resolve(); err != nil {
		return nil, fmt.Errorf("config %s: %w", source, err)
	}
	return &c, nil
}

// checkKeys reports the first key of a config file that Config does not
// have, naming the file. viper lower-cases keys, so this is checked on the
// raw YAML to give the user's own spelling back.
func checkKeys(b []byte, file string) error {
	var raw map[string]any
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("config %s: %w", file, err)
	}
	known := map[string]bool{}
	for _, k := range keys() {
		known[k] = true
	}
	var walk func(prefix string, m map[string]any) error
	walk = func(prefix string, m map[string]any) error {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			full := k
			if prefix != "" {
				full = prefix + "." + k
			}
			if !known[full] && !isPrefix(full) {
				return fmt.Errorf("config %s: unknown key %q", file, full)
			}
			sub, isMap := m[k].(map[string]any)
			if !known[full] && !isMap && m[k] != nil {
				// A scalar or list where a section belongs (cache: false,
				// models.chat: openai) would otherwise be dropped silently.
				return fmt.Errorf("config %s: %q is a section (keys %s), not %s", file, full, strings.Join(childKeys(full), ", "), describeYAML(m[k]))
			}
			if isMap && !known[full] {
				if err := walk(full, sub); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return walk("", raw)
}

// childKeys lists the keys directly under section p ("cache" → enabled, dir).
func childKeys(p string) []string {
	var out []string
	for _, k := range keys() {
		if rest, ok := strings.CutPrefix(k, p+"."); ok {
			child, _, _ := strings.Cut(rest, ".")
			if !slices.Contains(out, child) {
				out = append(out, child)
			}
		}
	}
	return out
}

// describeYAML names a decoded YAML value's kind for an error message.
func describeYAML(v any) string {
	switch v.(type) {
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("the string %q", v)
	}
	return fmt.Sprintf("the value %v", v)
}

func isPrefix(p string) bool {
	for _, k := range keys() {
		if strings.HasPrefix(k, p+".") {
			return true
		}
	}
	return false
}

// Keys lists every leaf key of Config ("models.chat.endpoints", "answer.seed", ...).
func Keys() []string { return slices.Clone(keys()) }

// fieldKey is the config key of struct field f under prefix, from its
// mapstructure tag; false for a field that is no key.
func fieldKey(f reflect.StructField, prefix string) (string, bool) {
	tag := strings.Split(f.Tag.Get("mapstructure"), ",")[0]
	if tag == "" || tag == "-" {
		return "", false
	}
	if prefix == "" {
		return tag, true
	}
	return prefix + "." + tag, true
}

// keys walks Config's fields once; the result never changes.
var keys = sync.OnceValue(func() []string {
	var out []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			key, ok := fieldKey(f, prefix)
			if !ok {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(time.Time{}) {
				walk(key, ft)
				continue
			}
			out = append(out, key)
		}
	}
	walk("", reflect.TypeOf(Config{}))
	return out
})

// checkEnv refuses ARBOR_* variables that look like config keys but match
// none (a misspelt ARBOR_ANSWER_BUGDET would otherwise be ignored
// silently): those that begin with a config section's name
// (ARBOR_ANSWER_…, ARBOR_MODELS_…). Other ARBOR_* variables are not config
// (ARBOR_CONFIG, test switches such as ARBOR_LARGE, keys handed to
// bridge sidecars) and are left alone, as are variables named by an
// endpoint's api_key_env.
func checkEnv(c *Config) error {
	known := map[string]bool{}
	sections := map[string]bool{}
	for _, k := range keys() {
		known[EnvName(k)] = true
		if top, _, nested := strings.Cut(k, "."); nested {
			sections[EnvName(top)+"_"] = true
		}
	}
	for _, nr := range c.Models.Roles() {
		for _, e := range nr.Role.Endpoints {
			known[e.APIKeyEnv] = true
		}
	}
	var unknown []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if known[name] || !strings.HasPrefix(name, "ARBOR_") {
			continue
		}
		for sec := range sections {
			if strings.HasPrefix(name, sec) || name+"_" == sec {
				unknown = append(unknown, name)
				break
			}
		}
	}
	if len(unknown) == 0 {
		for _, kv := range os.Environ() {
			name, _, _ := strings.Cut(kv, "=")
			if known[name] || !strings.HasPrefix(name, "ARBOR_") {
				continue
			}
			if want, ok := misspeltKey(name); ok {
				return fmt.Errorf("environment: %s matches no config key; did you mean %s? (keys are ARBOR_ plus the key upper-cased with _ for .; see arbor config show)", name, want)
			}
		}
		return nil
	}
	sort.Strings(unknown)
	return fmt.Errorf("environment: %s matches no config key (keys are ARBOR_ plus the key upper-cased with _ for ., e.g. ARBOR_ANSWER_BUDGET; see arbor config show)", strings.Join(unknown, ", "))
}

// misspeltKey reports whether ARBOR_* variable name is a config key's
// variable with its section misspelt (ARBOR_ANSWR_BUDGET for
// ARBOR_ANSWER_BUDGET), and which: the words after ARBOR_ split into a
// section within two edits of a real one and the exact rest of one of its
// keys. Requiring the rest to be a key of that section keeps other ARBOR_*
// variables (test switches, keys handed to sidecars) from being taken for
// config.
func misspeltKey(name string) (string, bool) {
	words := strings.Split(strings.ToLower(strings.TrimPrefix(name, "ARBOR_")), "_")
	for _, k := range keys() {
		section, rest, nested := strings.Cut(k, ".")
		if !nested {
			continue
		}
		restWords := strings.Split(strings.ReplaceAll(rest, ".", "_"), "_")
		if len(words) <= len(restWords) || !slices.Equal(words[len(words)-len(restWords):], restWords) {
			continue
		}
		got := strings.Join(words[:len(words)-len(restWords)], "_")
		if got != section && editDistance(got, section) <= 2 {
			return EnvName(k), true
		}
	}
	return "", false
}

// editDistance is the Levenshtein distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// EnvName is the environment variable that sets key ("answer.budget" →
// "ARBOR_ANSWER_BUDGET").
func EnvName(key string) string {
	return "ARBOR_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// durationHook reads durations from strings with a unit ("30s", "200ms").
// A bare number is refused rather than read as nanoseconds: "timeout: 30"
// would otherwise be a 30 ns timeout. Zero needs no unit.
func durationHook(from, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeOf(time.Duration(0)) {
		return data, nil
	}
	switch from.Kind() {
	case reflect.String:
		s := strings.TrimSpace(data.(string))
		if s == "" || s == "0" {
			return time.Duration(0), nil
		}
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("duration %q: needs a unit, e.g. 30s, 200ms or 2m", s)
		}
		return d, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if reflect.ValueOf(data).IsZero() {
			return time.Duration(0), nil
		}
		return nil, fmt.Errorf("duration %v: needs a unit, e.g. %vs or %vms", data, data, data)
	}
	return data, nil
}

// wholeNumberHook refuses a number with a fraction or out of range where an
// integer belongs: mapstructure's weak typing would truncate "budget:
// 4096.7" to 4096 and wrap 99999999999999999999 (which YAML reads as a
// float) to a negative count.
func wholeNumberHook(from, to reflect.Type, data any) (any, error) {
	var lo, hi float64
	switch to.Kind() {
	case reflect.Int, reflect.Int64:
		lo, hi = math.MinInt64, math.MaxInt64
	case reflect.Int32:
		lo, hi = math.MinInt32, math.MaxInt32
	case reflect.Uint, reflect.Uint64:
		lo, hi = 0, math.MaxUint64
	default:
		return data, nil
	}
	if to == reflect.TypeOf(time.Duration(0)) {
		return data, nil
	}
	var f float64
	switch from.Kind() {
	case reflect.Float32, reflect.Float64:
		f = reflect.ValueOf(data).Float()
	case reflect.Uint, reflect.Uint64:
		if u := reflect.ValueOf(data).Uint(); to.Kind() == reflect.Int || to.Kind() == reflect.Int64 {
			if u > math.MaxInt64 {
				return nil, fmt.Errorf("%d is out of range", u)
			}
		}
		return data, nil
	default:
		return data, nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f) {
		return nil, fmt.Errorf("expected a whole number, got %v", f)
	}
	// float64(MaxInt64) rounds up to 2^63, itself out of range.
	if f < lo || f >= hi {
		return nil, fmt.Errorf("%s is out of range", strconv.FormatFloat(f, 'f', -1, 64))
	}
	return data, nil
}

// endpointHook refuses an endpoint's max_inflight or timeout given as zero
// or less: resolve gives an endpoint that leaves them out the defaults (8
// requests in flight, 120 s), and without this an explicit "max_inflight:
// 0" or "timeout: -1s" would be replaced by them without a word.
func endpointHook(from, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeOf(Endpoint{}) || from.Kind() != reflect.Map {
		return data, nil
	}
	m, ok := data.(map[string]any)
	if !ok {
		return data, nil
	}
	if v, ok := m["max_inflight"]; ok {
		if n, isNum := asFloat(v); !isNum || n <= 0 {
			return nil, fmt.Errorf("max_inflight: %v must be a positive number of requests (leave it out for the default, 8)", v)
		}
	}
	if v, ok := m["timeout"]; ok {
		d, err := durationHook(reflect.TypeOf(v), reflect.TypeOf(time.Duration(0)), v)
		if err != nil {
			return nil, fmt.Errorf("timeout: %w", err)
		}
		if dd, _ := d.(time.Duration); dd <= 0 {
			return nil, fmt.Errorf("timeout: %v must be positive (leave it out for the default, 120s)", v)
		}
	}
	return data, nil
}

// asFloat reads a decoded YAML or JSON number (or a numeric string, as an
// environment variable carries it).
func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	case string:
		var f float64
		if _, err := fmt.Sscan(strings.TrimSpace(x), &f); err == nil {
			return f, true
		}
	}
	return 0, false
}

// stringToStructuredHook lets an environment variable or flag carry a list
// or struct as YAML or JSON (ARBOR_MODELS_CHAT_ENDPOINTS='[{url: ..., model: ...}]').
func stringToStructuredHook(from, to reflect.Type, data any) (any, error) {
	if from.Kind() != reflect.String {
		return data, nil
	}
	switch to.Kind() {
	case reflect.Slice, reflect.Struct, reflect.Map:
		if to == reflect.TypeOf(time.Time{}) {
			return data, nil
		}
		s := strings.TrimSpace(data.(string))
		if s == "" {
			return reflect.Zero(to).Interface(), nil
		}
		var out any
		if err := yaml.Unmarshal([]byte(s), &out); err != nil {
			// The value is not echoed: an endpoint list may hold a key.
			return nil, fmt.Errorf("cannot parse the value (%d bytes, not shown) as a YAML/JSON %s: %v", len(s), to.Kind(), err)
		}
		return out, nil
	case reflect.Ptr:
		if to.Elem().Kind() == reflect.Bool {
			return data, nil
		}
	}
	return data, nil
}

// cleanDecodeErr keeps mapstructure's per-field messages ("'answer.seed'
// cannot parse value ...") and drops its "decoding failed due to ..." preamble.
func cleanDecodeErr(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "error(s):"); i >= 0 {
		msg = msg[i+len("error(s):"):]
	}
	var parts []string
	for _, l := range strings.Split(msg, "\n") {
		if l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "* ")); l != "" {
			parts = append(parts, l)
		}
	}
	return errors.New(strings.Join(parts, "; "))
}

// resolve validates the config and reads API keys from the environment.
func (c *Config) resolve() error {
	if err := c.Serve.resolve(); err != nil {
		return err
	}
	for _, nr := range c.Models.Roles() {
		name, r := nr.Name, nr.Role
		switch r.Provider {
		case "", "local":
			r.Provider = "local"
		case "qwen3":
			if name != "tokenizer" {
				return fmt.Errorf("models.%s.provider: \"qwen3\" is only for the tokenizer role", name)
			}
		case "openai":
			if len(r.Endpoints) == 0 {
				return fmt.Errorf("models.%s: provider openai needs at least one endpoint in models.%s.endpoints", name, name)
			}
		default:
			return fmt.Errorf("models.%s.provider: %q is not one of local, openai (tokenizer: also qwen3)", name, r.Provider)
		}
		if r.Provider != "openai" && len(r.Endpoints) > 0 {
			r.Provider = "openai"
		}
		for i := range r.Endpoints {
			e := &r.Endpoints[i]
			where := fmt.Sprintf("models.%s.endpoints[%d]", name, i)
			if e.URL == "" {
				return fmt.Errorf("%s.url: missing", where)
			}
			if !strings.HasPrefix(e.URL, "http://") && !strings.HasPrefix(e.URL, "https://") {
				return fmt.Errorf("%s.url: %q must start with http:// or https://", where, RedactURL(e.URL))
			}
			e.URL = strings.TrimRight(e.URL, "/")
			if e.MaxInflight <= 0 {
				e.MaxInflight = 8
			}
			if e.Timeout <= 0 {
				e.Timeout = 120 * time.Second
			}
			if e.APIKeyEnv != "" && e.APIKey == "" {
				e.APIKey = Secret(os.Getenv(e.APIKeyEnv))
			}
		}
	}
	if c.Models.Rerank.API == "" {
		c.Models.Rerank.API = "vllm"
	}
	if c.Models.Rerank.API != "vllm" && c.Models.Rerank.API != "tei" {
		return fmt.Errorf("models.rerank.api: %q is not one of vllm, tei", c.Models.Rerank.API)
	}
	switch c.Models.Rerank.Scores {
	case "":
		c.Models.Rerank.Scores = "auto"
	case "auto", "logit", "probability":
	default:
		return fmt.Errorf("models.rerank.scores: %q is not one of auto, logit, probability", c.Models.Rerank.Scores)
	}
	for key, val := range map[string]string{"answer.answerer": c.Answer.Answerer, "arbormem.extractors": c.ArborMem.Extractors, "baselines.summaries": c.Baselines.Summaries} {
		if val != "auto" && val != "chat" && val != "heuristic" {
			return fmt.Errorf("%s: %q is not one of auto, chat, heuristic", key, val)
		}
	}
	if t := c.Answer.Template; t != "paper" && t != "harness" {
		return fmt.Errorf("answer.template: %q is not one of paper, harness", t)
	}
	if b := c.Run.Bundles; b != "full" && b != "trace" && b != "off" {
		return fmt.Errorf("run.bundles: %q is not one of full, trace, off", b)
	}
	if j := c.Judge.Mode; j != "auto" && j != "chat" && j != "lexical" {
		return fmt.Errorf("judge.mode: %q is not one of auto, chat, lexical", j)
	}
	if c.Judge.AnswerInBundleMaxWords <= 0 {
		return fmt.Errorf("judge.answer_in_bundle_max_words: %d must be positive", c.Judge.AnswerInBundleMaxWords)
	}
	if b := c.Judge.BEAMScoring; b != BEAMCorrected && b != BEAMOfficial {
		return fmt.Errorf("judge.beam_scoring: %q is not one of %s, %s", b, BEAMCorrected, BEAMOfficial)
	}
	if err := c.Bridges.resolve(); err != nil {
		return err
	}
	if p := c.Judge.Parse; p != "strict" && p != "official" {
		return fmt.Errorf("judge.parse: %q is not one of strict, official", p)
	}
	if err := c.checkRanges(); err != nil {
		return err
	}
	c.Warnings = append(c.Warnings, c.roleWarnings()...)
	return nil
}

// checkRanges refuses counts that make no sense at zero or below and
// floats that are not finite, naming the key: a zero max_tokens or a NaN τ
// would otherwise run and measure nothing.
func (c *Config) checkRanges() error {
	positive := []struct {
		key string
		n   int
	}{
		{"answer.budget", c.Answer.Budget}, {"answer.max_tokens", c.Answer.MaxTokens}, {"answer.max_context", c.Answer.MaxContext},
		{"judge.max_tokens", c.Judge.MaxTokens}, {"retry.max_attempts", c.Retry.MaxAttempts},
		{"models.embed.dim", c.Models.Embed.Dim},
		{"arbormem.semantic_candidates", c.ArborMem.SemanticCandidates}, {"arbormem.topic_candidates", c.ArborMem.TopicCandidates},
		{"arbormem.keyword_candidates", c.ArborMem.KeywordCandidates}, {"arbormem.raw_tail", c.ArborMem.RawTail},
		{"arbormem.branch_budget", c.ArborMem.BranchBudget}, {"arbormem.max_facts", c.ArborMem.MaxFacts},
		{"arbormem.memory_op_max_tokens", c.ArborMem.MemoryOpMaxTokens},
		{"baselines.recent_turns", c.Baselines.RecentTurns}, {"baselines.bm25_units", c.Baselines.BM25Units},
		{"baselines.bm25_chunks_beam", c.Baselines.BM25ChunksBEAM}, {"baselines.summary_every", c.Baselines.SummaryEvery},
	}
	for _, p := range positive {
		if p.n <= 0 {
			return fmt.Errorf("%s: %d must be positive", p.key, p.n)
		}
	}
	nonNegative := []struct {
		key string
		n   int
	}{
		{"run.workers", c.Run.Workers}, {"arbormem.supplemental_budget", c.ArborMem.SupplementalBudget},
		{"retry.failures_to_eject", c.Retry.FailuresToEject},
		{"models.embed.batch_size", c.Models.Embed.BatchSize}, {"models.rerank.batch_size", c.Models.Rerank.BatchSize},
	}
	for _, p := range nonNegative {
		if p.n < 0 {
			return fmt.Errorf("%s: %d must not be negative (0 means the default)", p.key, p.n)
		}
	}
	for key, t := range map[string]float64{
		"answer.temperature": c.Answer.Temperature, "judge.temperature": c.Judge.Temperature, "bridges.temperature": c.Bridges.Temperature,
	} {
		if t < 0 {
			return fmt.Errorf("%s: %v must not be negative", key, t)
		}
	}
	if err := checkDurations(reflect.ValueOf(*c), ""); err != nil {
		return err
	}
	a := c.ArborMem
	for key, f := range map[string]float64{
		"answer.temperature": c.Answer.Temperature, "judge.temperature": c.Judge.Temperature,
		"arbormem.tau": a.Tau, "arbormem.keyword_first": a.KeywordFirst, "arbormem.keyword_next": a.KeywordNext,
		"arbormem.keyword_max_df": a.KeywordMaxDF, "arbormem.recency_max": a.RecencyMax, "arbormem.topic_weight": a.TopicWeight,
		"arbormem.topic_match_min": a.TopicMatchMin, "arbormem.topic_penalty": a.TopicPenalty, "arbormem.ce_scale": a.CEScale,
		"arbormem.fact_min_sim": a.FactMinSim,
	} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%s: %v is not a finite number", key, f)
		}
	}
	return c.Report.check()
}

// checkDurations refuses a negative duration anywhere in v, naming its key
// (a negative retry.base_delay or eject_for would otherwise act as zero).
func checkDurations(v reflect.Value, prefix string) error {
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		key, ok := fieldKey(f, prefix)
		if !ok {
			continue
		}
		fv := v.Field(i)
		switch {
		case f.Type == reflect.TypeOf(time.Duration(0)):
			if d := time.Duration(fv.Int()); d < 0 {
				return fmt.Errorf("%s: %s must not be negative", key, d)
			}
		case f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeOf(time.Time{}):
			if err := checkDurations(fv, key); err != nil {
				return err
			}
		}
	}
	return nil
}

// roleWarnings says what a model-backed config leaves offline: an
// api_key_env naming an unset variable (requests go out without a key),
// and roles still local beside model-backed ones (only chat set: the judge,
// embedder and reranker stay heuristic, which changes what is measured).
func (c *Config) roleWarnings() []string {
	var w, local []string
	model := false
	for _, nr := range c.Models.Roles() {
		if nr.Name == "tokenizer" {
			continue
		}
		if nr.Role.Local() {
			local = append(local, nr.Name)
			continue
		}
		model = true
		for i, e := range nr.Role.Endpoints {
			if e.APIKeyEnv != "" && os.Getenv(e.APIKeyEnv) == "" && e.APIKey == "" {
				w = append(w, fmt.Sprintf("models.%s.endpoints[%d].api_key_env: %s is not set; requests go without an API key", nr.Name, i, e.APIKeyEnv))
			}
		}
	}
	if model && len(local) > 0 {
		w = append(w, fmt.Sprintf("models: %s stay offline (local heuristics) while other roles use endpoints; tables say heuristic for them", strings.Join(local, ", ")))
	}
	return w
}

// Redacted is a copy of c whose endpoint URLs hide their passwords
// (RedactURL); API keys are Secrets and hide themselves.
func (c *Config) Redacted() *Config {
	r := *c
	for _, nr := range r.Models.Roles() {
		eps := make([]Endpoint, len(nr.Role.Endpoints))
		copy(eps, nr.Role.Endpoints)
		for i := range eps {
			eps[i].URL = RedactURL(eps[i].URL)
		}
		if len(eps) > 0 {
			nr.Role.Endpoints = eps
		}
	}
	return &r
}

// Map is the redacted config under its YAML keys, as plain maps, lists and
// scalars (durations as strings, "30s"), for manifests.
func (c *Config) Map() (map[string]any, error) {
	y, err := c.YAML()
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(y, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// Sequential makes c the efficiency run's setup (P:586, P:1420, P:1484,
// "executed sequentially"): one episode and one question at a time, no
// response cache (a cached reply has no latency) and no ingest prefetch,
// which only a replay that knows the next turn can do and which Mem0 and
// A-MEM do not get, so that Ingest/Turn is not biased toward ArborMem.
// arbor latency applies it; configs/efficiency.yaml states the same.
func (c *Config) Sequential() {
	c.Run.Workers = 1
	c.Cache.Enabled = false
	c.ArborMem.Prefetch = false
}

// CacheDir is where the response cache lives: cache.dir, or
// <run.results>/.cache/llm when that is empty. It is computed on use, not at
// load, so that a caller who changes Run.Results moves the cache with it.
func (c *Config) CacheDir() string {
	if c.Cache.Dir != "" {
		return c.Cache.Dir
	}
	return filepath.Join(c.Run.Results, ".cache", "llm")
}

// UseChat reports whether an operation configured as mode ("auto", "chat",
// "heuristic") runs through the chat model.
func (c *Config) UseChat(mode string) bool {
	switch mode {
	case "chat":
		return true
	case "heuristic":
		return false
	}
	return c.Models.Chat.Provider == "openai"
}

// YAML renders the effective config with every secret redacted: API keys
// and passwords in endpoint URLs.
func (c *Config) YAML() ([]byte, error) {
	r := c.Redacted()
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
