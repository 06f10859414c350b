// Package ops is the contract of ArborMem's memory operations (paper
// appendix D): the Extractor, Auditor and TagPredictor interfaces, their
// output schemas (node metadata, fact drafts, artifacts, events, states,
// audit pairs), the output limits every implementation keeps, the
// attribute ontology, and the sanitisers that enforce the schemas on any
// reply. It sits below both implementations: the chat-backed one in
// pkg/arbormem and the rule-based one in pkg/arbormem/rules.
package ops
