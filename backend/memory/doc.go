// Package memory holds the formats of memories (docs/memory.md): the Markdown a folder's
// memories are exported as, the entries read from the files people already keep (Claude
// Code's MEMORY.md, an AGENTS.md "## Memory" section), and the framed note a run carries
// them in.
//
// Contract:
//
//   - Nothing here stores anything or decides whether a run carries a note: the store keeps
//     memories and proposals (store.Memory, store.MemoryProposal), and the loop's core decides
//     when a note is due and what it drops to fit (core.MemoryNote). This package only turns
//     them into text and back.
//   - Import never makes a memory: every entry it reads is a proposal the person accepts or
//     rejects (store.ProposeMemories).
//   - Export then import gives back the same texts: the provenance Export writes sits in an
//     HTML comment that Entries strips.
package memory
