package core

// Calls only the person may approve: a remember call (a memory enters every later prompt of
// its folder) and a message to another session. No approval mode, hook or skill grant
// approves them; the core asks about them under ApprovalPerson, which the approver answers
// with the person or a rule the person saved for that tool, and nothing else. With nobody to
// ask (Started.NoPerson: no terminal and no window, a schedule) they are refused at once.

// ToolPersonOnly is the kind of a tool whose calls only the person approves.
const ToolPersonOnly ToolKind = "person_only"

// ApprovalPerson is the mode the core asks about a ToolPersonOnly call under
// (RequestApproval.Modes): only the person, or an allow rule naming the tool, approves it.
const ApprovalPerson = "person"

// ByNoPerson refuses a ToolPersonOnly call in a run nobody can be asked in.
const ByNoPerson = "mode:no-person"

// NoPersonRefusal is the result the model reads for a call refused ByNoPerson.
const NoPersonRefusal = "only the person can approve this call, and nobody can be asked in this run " +
	"(no terminal and no window): it was not made"
