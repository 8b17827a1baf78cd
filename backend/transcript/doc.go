// Package transcript writes a session as a readable Markdown transcript: `loopdesk
// sessions export --format markdown ID` and the window's Export → Markdown.
//
// Contract:
//   - Markdown renders the rows in order: the person's messages, the model's replies (its
//     reasoning folded in a <details>), each tool call with its arguments, its approval and
//     its result, Loopdesk's notes, summaries and restores. Usage and system rows are left
//     out: they are bookkeeping, not conversation.
//   - Text is never interpreted: arguments and results go in code fences longer than any run
//     of backticks inside them, so nothing in a result can close its fence.
//   - A result longer than MaxResultLines lines or MaxResultBytes bytes is cut, with a note
//     saying how much was left out and that the JSON export holds it whole.
//   - A message's images are linked to files Options.SaveImage writes (ImagesNextTo: a
//     folder beside the transcript), or listed by name, size and hash when there is none.
//   - It reads nothing but the session, its rows and their image blobs, and writes nothing but
//     w and the image files: no key, no file contents of the workspace.
package transcript
