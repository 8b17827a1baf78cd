export namespace agents {
	
	export class Definition {
	    name: string;
	    description: string;
	    source: string;
	    tools: string[];
	    model: string;
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new Definition(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.source = source["source"];
	        this.tools = source["tools"];
	        this.model = source["model"];
	        this.error = source["error"];
	    }
	}

}

export namespace checkpoint {
	
	export class Applied {
	    parent_id: string;
	    seq: number;
	    paths: string[];
	
	    static createFrom(source: any = {}) {
	        return new Applied(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.parent_id = source["parent_id"];
	        this.seq = source["seq"];
	        this.paths = source["paths"];
	    }
	}
	export class Change {
	    seq: number;
	    path: string;
	    change: string;
	    size: number;
	    sha256: string;
	    by: string;
	
	    static createFrom(source: any = {}) {
	        return new Change(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.path = source["path"];
	        this.change = source["change"];
	        this.size = source["size"];
	        this.sha256 = source["sha256"];
	        this.by = source["by"];
	    }
	}
	export class Conflict {
	    path: string;
	    by: string;
	
	    static createFrom(source: any = {}) {
	        return new Conflict(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.by = source["by"];
	    }
	}
	export class Entry {
	    kind: string;
	    mode: number;
	    size: number;
	    sha256?: string;
	    target?: string;
	    stored: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Entry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.mode = source["mode"];
	        this.size = source["size"];
	        this.sha256 = source["sha256"];
	        this.target = source["target"];
	        this.stored = source["stored"];
	    }
	}
	export class Hunk {
	    seq: number;
	    path: string;
	    hunk: number;
	    old_start: number;
	    old_lines: number;
	    new_start: number;
	    new_lines: number;
	    state: string;
	    patch: string;
	
	    static createFrom(source: any = {}) {
	        return new Hunk(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.path = source["path"];
	        this.hunk = source["hunk"];
	        this.old_start = source["old_start"];
	        this.old_lines = source["old_lines"];
	        this.new_start = source["new_start"];
	        this.new_lines = source["new_lines"];
	        this.state = source["state"];
	        this.patch = source["patch"];
	    }
	}
	export class Orphan {
	    fork_id: string;
	    folder: string;
	    bytes: number;
	    branch: string;
	
	    static createFrom(source: any = {}) {
	        return new Orphan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.fork_id = source["fork_id"];
	        this.folder = source["folder"];
	        this.bytes = source["bytes"];
	        this.branch = source["branch"];
	    }
	}
	export class Other {
	    path: string;
	    session_id: string;
	    seq: number;
	
	    static createFrom(source: any = {}) {
	        return new Other(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	    }
	}
	export class Restored {
	    path: string;
	    change: string;
	
	    static createFrom(source: any = {}) {
	        return new Restored(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.change = source["change"];
	    }
	}
	export class Plan {
	    restored: Restored[];
	    dry_run: boolean;
	    conflicts?: Conflict[];
	    others?: Other[];
	    unrestorable?: string[];
	    seq?: number;
	
	    static createFrom(source: any = {}) {
	        return new Plan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.restored = this.convertValues(source["restored"], Restored);
	        this.dry_run = source["dry_run"];
	        this.conflicts = this.convertValues(source["conflicts"], Conflict);
	        this.others = this.convertValues(source["others"], Other);
	        this.unrestorable = source["unrestorable"];
	        this.seq = source["seq"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace config {
	
	export class Budgets {
	    max_turns: number;
	    max_tool_calls: number;
	    max_tokens: number;
	    max_cost_usd: number;
	    timeout_seconds: number;
	
	    static createFrom(source: any = {}) {
	        return new Budgets(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.max_turns = source["max_turns"];
	        this.max_tool_calls = source["max_tool_calls"];
	        this.max_tokens = source["max_tokens"];
	        this.max_cost_usd = source["max_cost_usd"];
	        this.timeout_seconds = source["timeout_seconds"];
	    }
	}
	export class ContextWindow {
	    model: string;
	    tokens: number;
	
	    static createFrom(source: any = {}) {
	        return new ContextWindow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.tokens = source["tokens"];
	    }
	}
	export class KeyOrigin {
	    from: string;
	    name?: string;
	    found: boolean;
	
	    static createFrom(source: any = {}) {
	        return new KeyOrigin(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.from = source["from"];
	        this.name = source["name"];
	        this.found = source["found"];
	    }
	}
	export class ModelVision {
	    provider: string;
	    model: string;
	    vision: string;
	
	    static createFrom(source: any = {}) {
	        return new ModelVision(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.vision = source["vision"];
	    }
	}
	export class Preset {
	    name: string;
	    base_url: string;
	    needs_key: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Preset(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.base_url = source["base_url"];
	        this.needs_key = source["needs_key"];
	    }
	}
	export class Price {
	    model: string;
	    input_per_mtok: number;
	    output_per_mtok: number;
	    cache_read_per_mtok?: number;
	    cache_write_per_mtok?: number;
	
	    static createFrom(source: any = {}) {
	        return new Price(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.model = source["model"];
	        this.input_per_mtok = source["input_per_mtok"];
	        this.output_per_mtok = source["output_per_mtok"];
	        this.cache_read_per_mtok = source["cache_read_per_mtok"];
	        this.cache_write_per_mtok = source["cache_write_per_mtok"];
	    }
	}
	export class Provider {
	    name: string;
	    kind: string;
	    base_url: string;
	    api_key_env?: string;
	    api_key_file?: string;
	    models: string[];
	    thinking_budget?: number;
	
	    static createFrom(source: any = {}) {
	        return new Provider(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.base_url = source["base_url"];
	        this.api_key_env = source["api_key_env"];
	        this.api_key_file = source["api_key_file"];
	        this.models = source["models"];
	        this.thinking_budget = source["thinking_budget"];
	    }
	}
	export class ProviderInfo {
	    name: string;
	    kind: string;
	    base_url: string;
	    models: string[];
	    thinking_budget: number;
	    key: KeyOrigin;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new ProviderInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.base_url = source["base_url"];
	        this.models = source["models"];
	        this.thinking_budget = source["thinking_budget"];
	        this.key = this.convertValues(source["key"], KeyOrigin);
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace core {
	
	export class ProposedHunk {
	    hunk: number;
	    old_start: number;
	    old_lines: number;
	    new_start: number;
	    new_lines: number;
	    patch: string;
	    old: string;
	    new: string;
	
	    static createFrom(source: any = {}) {
	        return new ProposedHunk(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.hunk = source["hunk"];
	        this.old_start = source["old_start"];
	        this.old_lines = source["old_lines"];
	        this.new_start = source["new_start"];
	        this.new_lines = source["new_lines"];
	        this.patch = source["patch"];
	        this.old = source["old"];
	        this.new = source["new"];
	    }
	}
	export class ApprovalRequestedPayload {
	    call_id: string;
	    name: string;
	    arguments: number[];
	    read_only: boolean;
	    sandboxed: boolean;
	    network: boolean;
	    hunks?: ProposedHunk[];
	
	    static createFrom(source: any = {}) {
	        return new ApprovalRequestedPayload(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.call_id = source["call_id"];
	        this.name = source["name"];
	        this.arguments = source["arguments"];
	        this.read_only = source["read_only"];
	        this.sandboxed = source["sandboxed"];
	        this.network = source["network"];
	        this.hunks = this.convertValues(source["hunks"], ProposedHunk);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Meter {
	    key: string;
	    label: string;
	    value: number;
	    limit: number;
	    unit: string;
	    fraction: number;
	    level: string;
	
	    static createFrom(source: any = {}) {
	        return new Meter(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.label = source["label"];
	        this.value = source["value"];
	        this.limit = source["limit"];
	        this.unit = source["unit"];
	        this.fraction = source["fraction"];
	        this.level = source["level"];
	    }
	}
	
	export class QueuedMessage {
	    id: string;
	    text: string;
	    // Go type: time
	    queued_at: any;
	
	    static createFrom(source: any = {}) {
	        return new QueuedMessage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.text = source["text"];
	        this.queued_at = this.convertValues(source["queued_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace desktop {
	
	export class Branch {
	    at: number;
	    sessions: string[];
	    index: number;
	
	    static createFrom(source: any = {}) {
	        return new Branch(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.at = source["at"];
	        this.sessions = source["sessions"];
	        this.index = source["index"];
	    }
	}
	export class ChildView {
	    session_id: string;
	    parent_call_id: string;
	    seq: number;
	    status: string;
	    step: string;
	    tool_calls: number;
	    tokens: number;
	    cost: number;
	    pending: core.ApprovalRequestedPayload[];
	
	    static createFrom(source: any = {}) {
	        return new ChildView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.parent_call_id = source["parent_call_id"];
	        this.seq = source["seq"];
	        this.status = source["status"];
	        this.step = source["step"];
	        this.tool_calls = source["tool_calls"];
	        this.tokens = source["tokens"];
	        this.cost = source["cost"];
	        this.pending = this.convertValues(source["pending"], core.ApprovalRequestedPayload);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ConnectionResult {
	    ok: boolean;
	    models: string[];
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new ConnectionResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.ok = source["ok"];
	        this.models = source["models"];
	        this.error = source["error"];
	    }
	}
	export class DecisionInput {
	    approved: boolean;
	    reason: string;
	    arguments: string;
	    always?: stack.RuleInput;
	    hunks?: tools.HunkChoice[];
	
	    static createFrom(source: any = {}) {
	        return new DecisionInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.approved = source["approved"];
	        this.reason = source["reason"];
	        this.arguments = source["arguments"];
	        this.always = this.convertValues(source["always"], stack.RuleInput);
	        this.hunks = this.convertValues(source["hunks"], tools.HunkChoice);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class FileDiff {
	    path: string;
	    change: string;
	    before: string;
	    after: string;
	    note: string;
	
	    static createFrom(source: any = {}) {
	        return new FileDiff(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.change = source["change"];
	        this.before = source["before"];
	        this.after = source["after"];
	        this.note = source["note"];
	    }
	}
	export class FileEntry {
	    path: string;
	    dir: boolean;
	    size: number;
	
	    static createFrom(source: any = {}) {
	        return new FileEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.dir = source["dir"];
	        this.size = source["size"];
	    }
	}
	export class FilePreview {
	    path: string;
	    content: string;
	    truncated: boolean;
	    binary: boolean;
	
	    static createFrom(source: any = {}) {
	        return new FilePreview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.content = source["content"];
	        this.truncated = source["truncated"];
	        this.binary = source["binary"];
	    }
	}
	export class ForkFolder {
	    folder: string;
	    branch: string;
	    bytes: number;
	
	    static createFrom(source: any = {}) {
	        return new ForkFolder(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.folder = source["folder"];
	        this.branch = source["branch"];
	        this.bytes = source["bytes"];
	    }
	}
	export class Session {
	    id: string;
	    title: string;
	    workspace: string;
	    model: string;
	    provider: string;
	    parent_id: string;
	    fork_seq: number;
	    parent_call_id?: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    scratch: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Session(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.workspace = source["workspace"];
	        this.model = source["model"];
	        this.provider = source["provider"];
	        this.parent_id = source["parent_id"];
	        this.fork_seq = source["fork_seq"];
	        this.parent_call_id = source["parent_call_id"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.scratch = source["scratch"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ForkedRun {
	    session: Session;
	    run_id: string;
	
	    static createFrom(source: any = {}) {
	        return new ForkedRun(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = this.convertValues(source["session"], Session);
	        this.run_id = source["run_id"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HookView {
	    event: string;
	    matcher: string;
	    command: string;
	    source: string;
	    file: string;
	    timeout_seconds: number;
	    ignore_failure: boolean;
	    trusted: boolean;
	
	    static createFrom(source: any = {}) {
	        return new HookView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event = source["event"];
	        this.matcher = source["matcher"];
	        this.command = source["command"];
	        this.source = source["source"];
	        this.file = source["file"];
	        this.timeout_seconds = source["timeout_seconds"];
	        this.ignore_failure = source["ignore_failure"];
	        this.trusted = source["trusted"];
	    }
	}
	export class HooksView {
	    workspace: string;
	    hooks: HookView[];
	    sha256: string;
	    trusted: boolean;
	    changed: boolean;
	    diff: string;
	    errors: string[];
	    recent: store.HookRun[];
	
	    static createFrom(source: any = {}) {
	        return new HooksView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = source["workspace"];
	        this.hooks = this.convertValues(source["hooks"], HookView);
	        this.sha256 = source["sha256"];
	        this.trusted = source["trusted"];
	        this.changed = source["changed"];
	        this.diff = source["diff"];
	        this.errors = source["errors"];
	        this.recent = this.convertValues(source["recent"], store.HookRun);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ImageInput {
	    name: string;
	    data: string;
	
	    static createFrom(source: any = {}) {
	        return new ImageInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.data = source["data"];
	    }
	}
	export class ImportedHooks {
	    added: number;
	    view: HooksView;
	
	    static createFrom(source: any = {}) {
	        return new ImportedHooks(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = source["added"];
	        this.view = this.convertValues(source["view"], HooksView);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class InstructionFile {
	    scope: string;
	    path: string;
	    sha256: string;
	    bytes: number;
	    truncated: boolean;
	    warning: string;
	    preview: string;
	
	    static createFrom(source: any = {}) {
	        return new InstructionFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.scope = source["scope"];
	        this.path = source["path"];
	        this.sha256 = source["sha256"];
	        this.bytes = source["bytes"];
	        this.truncated = source["truncated"];
	        this.warning = source["warning"];
	        this.preview = source["preview"];
	    }
	}
	export class LiveView {
	    seq: number;
	    running_run_id: string;
	    pending: core.ApprovalRequestedPayload[];
	    running: loop.RunningCall[];
	    queued: core.QueuedMessage[];
	
	    static createFrom(source: any = {}) {
	        return new LiveView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.running_run_id = source["running_run_id"];
	        this.pending = this.convertValues(source["pending"], core.ApprovalRequestedPayload);
	        this.running = this.convertValues(source["running"], loop.RunningCall);
	        this.queued = this.convertValues(source["queued"], core.QueuedMessage);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class MCPView {
	    path: string;
	    config: mcp.Config;
	    error: string;
	    servers: mcp.Status[];
	    names: mcp.NameMapping[];
	
	    static createFrom(source: any = {}) {
	        return new MCPView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.config = this.convertValues(source["config"], mcp.Config);
	        this.error = source["error"];
	        this.servers = this.convertValues(source["servers"], mcp.Status);
	        this.names = this.convertValues(source["names"], mcp.NameMapping);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class PaletteEntry {
	    kind: string;
	    name: string;
	    description: string;
	    argument_hint: string;
	    path: string;
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new PaletteEntry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.name = source["name"];
	        this.description = source["description"];
	        this.argument_hint = source["argument_hint"];
	        this.path = source["path"];
	        this.error = source["error"];
	    }
	}
	export class ProvidersView {
	    path: string;
	    providers: config.Provider[];
	    infos: config.ProviderInfo[];
	    error: string;
	
	    static createFrom(source: any = {}) {
	        return new ProvidersView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.providers = this.convertValues(source["providers"], config.Provider);
	        this.infos = this.convertValues(source["infos"], config.ProviderInfo);
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RevertedHunk {
	    hunk: checkpoint.Hunk;
	    note_seq: number;
	    from_line: number;
	    to_line: number;
	
	    static createFrom(source: any = {}) {
	        return new RevertedHunk(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.hunk = this.convertValues(source["hunk"], checkpoint.Hunk);
	        this.note_seq = source["note_seq"];
	        this.from_line = source["from_line"];
	        this.to_line = source["to_line"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SandboxInput {
	    session_id: string;
	    scope: string;
	    mode: string;
	    network: boolean;
	    clear: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SandboxInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.scope = source["scope"];
	        this.mode = source["mode"];
	        this.network = source["network"];
	        this.clear = source["clear"];
	    }
	}
	export class SandboxSetting {
	    mode: string;
	    network: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SandboxSetting(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.mode = source["mode"];
	        this.network = source["network"];
	    }
	}
	export class SandboxStatus {
	    available: boolean;
	    name: string;
	    notice: string;
	
	    static createFrom(source: any = {}) {
	        return new SandboxStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.available = source["available"];
	        this.name = source["name"];
	        this.notice = source["notice"];
	    }
	}
	export class SandboxView {
	    workspace: SandboxSetting;
	    session?: SandboxSetting;
	    effective: SandboxSetting;
	    source: string;
	    description: string;
	    notice: string;
	
	    static createFrom(source: any = {}) {
	        return new SandboxView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.workspace = this.convertValues(source["workspace"], SandboxSetting);
	        this.session = this.convertValues(source["session"], SandboxSetting);
	        this.effective = this.convertValues(source["effective"], SandboxSetting);
	        this.source = source["source"];
	        this.description = source["description"];
	        this.notice = source["notice"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SavedSettings {
	    provider: string;
	    base_url: string;
	    model: string;
	    has_key: boolean;
	    key_source: string;
	    configured: boolean;
	    approval_mode: string;
	    budgets: config.Budgets;
	    prices: config.Price[];
	    context_windows: config.ContextWindow[];
	    vision: config.ModelVision[];
	    theme: string;
	    notifications: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SavedSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.base_url = source["base_url"];
	        this.model = source["model"];
	        this.has_key = source["has_key"];
	        this.key_source = source["key_source"];
	        this.configured = source["configured"];
	        this.approval_mode = source["approval_mode"];
	        this.budgets = this.convertValues(source["budgets"], config.Budgets);
	        this.prices = this.convertValues(source["prices"], config.Price);
	        this.context_windows = this.convertValues(source["context_windows"], config.ContextWindow);
	        this.vision = this.convertValues(source["vision"], config.ModelVision);
	        this.theme = source["theme"];
	        this.notifications = source["notifications"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class SessionSummary {
	    id: string;
	    title: string;
	    workspace: string;
	    model: string;
	    provider: string;
	    parent_id: string;
	    fork_seq: number;
	    parent_call_id?: string;
	    // Go type: time
	    created_at: any;
	    // Go type: time
	    updated_at: any;
	    scratch: boolean;
	    running: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SessionSummary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.workspace = source["workspace"];
	        this.model = source["model"];
	        this.provider = source["provider"];
	        this.parent_id = source["parent_id"];
	        this.fork_seq = source["fork_seq"];
	        this.parent_call_id = source["parent_call_id"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.updated_at = this.convertValues(source["updated_at"], null);
	        this.scratch = source["scratch"];
	        this.running = source["running"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionView {
	    session: Session;
	    rows: loop.StoredRow[];
	    runs: store.Run[];
	    pending: core.ApprovalRequestedPayload[];
	    running_run_id: string;
	    running: loop.RunningCall[];
	    meters: core.Meter[];
	    sandbox: SandboxView;
	    mode: store.SessionMode;
	    totals: store.Totals;
	    queued: core.QueuedMessage[];
	    budgets: store.SessionBudgets;
	
	    static createFrom(source: any = {}) {
	        return new SessionView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session = this.convertValues(source["session"], Session);
	        this.rows = this.convertValues(source["rows"], loop.StoredRow);
	        this.runs = this.convertValues(source["runs"], store.Run);
	        this.pending = this.convertValues(source["pending"], core.ApprovalRequestedPayload);
	        this.running_run_id = source["running_run_id"];
	        this.running = this.convertValues(source["running"], loop.RunningCall);
	        this.meters = this.convertValues(source["meters"], core.Meter);
	        this.sandbox = this.convertValues(source["sandbox"], SandboxView);
	        this.mode = this.convertValues(source["mode"], store.SessionMode);
	        this.totals = this.convertValues(source["totals"], store.Totals);
	        this.queued = this.convertValues(source["queued"], core.QueuedMessage);
	        this.budgets = this.convertValues(source["budgets"], store.SessionBudgets);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SettingsInput {
	    provider: string;
	    base_url: string;
	    model: string;
	    api_key: string;
	    clear_key: boolean;
	    approval_mode: string;
	    budgets: config.Budgets;
	    prices: config.Price[];
	    context_windows: config.ContextWindow[];
	    vision: config.ModelVision[];
	    theme: string;
	    notifications?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new SettingsInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.provider = source["provider"];
	        this.base_url = source["base_url"];
	        this.model = source["model"];
	        this.api_key = source["api_key"];
	        this.clear_key = source["clear_key"];
	        this.approval_mode = source["approval_mode"];
	        this.budgets = this.convertValues(source["budgets"], config.Budgets);
	        this.prices = this.convertValues(source["prices"], config.Price);
	        this.context_windows = this.convertValues(source["context_windows"], config.ContextWindow);
	        this.vision = this.convertValues(source["vision"], config.ModelVision);
	        this.theme = source["theme"];
	        this.notifications = source["notifications"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Touched {
	    path: string;
	    seq: number;
	    tool: string;
	    changed: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Touched(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.seq = source["seq"];
	        this.tool = source["tool"];
	        this.changed = source["changed"];
	    }
	}
	export class UIState {
	    panel_width: number;
	    last_session: string;
	    zoom: number;
	
	    static createFrom(source: any = {}) {
	        return new UIState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.panel_width = source["panel_width"];
	        this.last_session = source["last_session"];
	        this.zoom = source["zoom"];
	    }
	}

}

export namespace loop {
	
	export class RunningCall {
	    call_id: string;
	    name: string;
	    // Go type: time
	    started_at: any;
	
	    static createFrom(source: any = {}) {
	        return new RunningCall(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.call_id = source["call_id"];
	        this.name = source["name"];
	        this.started_at = this.convertValues(source["started_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class StoredRow {
	    session_id: string;
	    seq: number;
	    kind: string;
	    payload: number[];
	    run_id: string;
	    // Go type: time
	    created_at: any;
	    tokens: number;
	
	    static createFrom(source: any = {}) {
	        return new StoredRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	        this.kind = source["kind"];
	        this.payload = source["payload"];
	        this.run_id = source["run_id"];
	        this.created_at = this.convertValues(source["created_at"], null);
	        this.tokens = source["tokens"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace mcp {
	
	export class ServerConfig {
	    type?: string;
	    command?: string;
	    args?: string[];
	    env?: Record<string, string>;
	    cwd?: string;
	    url?: string;
	    headers?: Record<string, string>;
	    disabled?: boolean;
	    trusted?: boolean;
	    timeout_s?: number;
	
	    static createFrom(source: any = {}) {
	        return new ServerConfig(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.env = source["env"];
	        this.cwd = source["cwd"];
	        this.url = source["url"];
	        this.headers = source["headers"];
	        this.disabled = source["disabled"];
	        this.trusted = source["trusted"];
	        this.timeout_s = source["timeout_s"];
	    }
	}
	export class Config {
	    mcpServers: Record<string, ServerConfig>;
	
	    static createFrom(source: any = {}) {
	        return new Config(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.mcpServers = this.convertValues(source["mcpServers"], ServerConfig, true);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class NameMapping {
	    name: string;
	    server: string;
	    tool: string;
	    note?: string;
	
	    static createFrom(source: any = {}) {
	        return new NameMapping(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.note = source["note"];
	    }
	}
	
	export class Status {
	    name: string;
	    transport: string;
	    status: string;
	    reason: string;
	    tools: string[];
	    stderr_tail: string;
	    exit_code?: number;
	    attempt?: number;
	    max_restarts?: number;
	    trusted: boolean;
	    skipped?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.transport = source["transport"];
	        this.status = source["status"];
	        this.reason = source["reason"];
	        this.tools = source["tools"];
	        this.stderr_tail = source["stderr_tail"];
	        this.exit_code = source["exit_code"];
	        this.attempt = source["attempt"];
	        this.max_restarts = source["max_restarts"];
	        this.trusted = source["trusted"];
	        this.skipped = source["skipped"];
	    }
	}

}

export namespace stack {
	
	export class RuleInput {
	    tool: string;
	    pattern: string;
	    effect: string;
	    scope: string;
	    session_id: string;
	
	    static createFrom(source: any = {}) {
	        return new RuleInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.tool = source["tool"];
	        this.pattern = source["pattern"];
	        this.effect = source["effect"];
	        this.scope = source["scope"];
	        this.session_id = source["session_id"];
	    }
	}

}

export namespace store {
	
	export class ChildTotals {
	    session_id: string;
	    turns: number;
	    tool_calls: number;
	    input_tokens: number;
	    output_tokens: number;
	    cost: number;
	
	    static createFrom(source: any = {}) {
	        return new ChildTotals(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.turns = source["turns"];
	        this.tool_calls = source["tool_calls"];
	        this.input_tokens = source["input_tokens"];
	        this.output_tokens = source["output_tokens"];
	        this.cost = source["cost"];
	    }
	}
	export class Hit {
	    session_id: string;
	    session_title: string;
	    seq: number;
	    kind: string;
	    snippet: string;
	    rank: number;
	
	    static createFrom(source: any = {}) {
	        return new Hit(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.session_title = source["session_title"];
	        this.seq = source["seq"];
	        this.kind = source["kind"];
	        this.snippet = source["snippet"];
	        this.rank = source["rank"];
	    }
	}
	export class HookPayload {
	    event: string;
	    matcher?: string;
	    command: string;
	    source: string;
	    call_id?: string;
	    tool?: string;
	    exit_code: number;
	    duration_ms: number;
	    decision: string;
	    reason: string;
	    stderr: string;
	    system_message?: string;
	    failed?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new HookPayload(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event = source["event"];
	        this.matcher = source["matcher"];
	        this.command = source["command"];
	        this.source = source["source"];
	        this.call_id = source["call_id"];
	        this.tool = source["tool"];
	        this.exit_code = source["exit_code"];
	        this.duration_ms = source["duration_ms"];
	        this.decision = source["decision"];
	        this.reason = source["reason"];
	        this.stderr = source["stderr"];
	        this.system_message = source["system_message"];
	        this.failed = source["failed"];
	    }
	}
	export class HookRun {
	    session_id: string;
	    seq: number;
	    // Go type: time
	    at: any;
	    hook: HookPayload;
	
	    static createFrom(source: any = {}) {
	        return new HookRun(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.seq = source["seq"];
	        this.at = this.convertValues(source["at"], null);
	        this.hook = this.convertValues(source["hook"], HookPayload);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Instruction {
	    path: string;
	    sha256: string;
	    bytes: number;
	    truncated: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Instruction(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.sha256 = source["sha256"];
	        this.bytes = source["bytes"];
	        this.truncated = source["truncated"];
	    }
	}
	export class PlanStep {
	    step: string;
	    status: string;
	
	    static createFrom(source: any = {}) {
	        return new PlanStep(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.step = source["step"];
	        this.status = source["status"];
	    }
	}
	export class PinnedPlan {
	    explanation?: string;
	    plan: PlanStep[];
	    seq: number;
	    by: string;
	
	    static createFrom(source: any = {}) {
	        return new PinnedPlan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.explanation = source["explanation"];
	        this.plan = this.convertValues(source["plan"], PlanStep);
	        this.seq = source["seq"];
	        this.by = source["by"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Plan {
	    explanation?: string;
	    plan: PlanStep[];
	
	    static createFrom(source: any = {}) {
	        return new Plan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.explanation = source["explanation"];
	        this.plan = this.convertValues(source["plan"], PlanStep);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Rule {
	    id: string;
	    tool: string;
	    pattern: string;
	    effect: string;
	    scope: string;
	    scope_id: string;
	    // Go type: time
	    created_at: any;
	
	    static createFrom(source: any = {}) {
	        return new Rule(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.tool = source["tool"];
	        this.pattern = source["pattern"];
	        this.effect = source["effect"];
	        this.scope = source["scope"];
	        this.scope_id = source["scope_id"];
	        this.created_at = this.convertValues(source["created_at"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Run {
	    run_id: string;
	    session_id: string;
	    model: string;
	    provider: string;
	    system_prompt_hash: string;
	    budgets: number[];
	    status: string;
	    output: string;
	    turns: number;
	    tool_calls: number;
	    input_tokens: number;
	    output_tokens: number;
	    cache_read_tokens: number;
	    cache_write_tokens: number;
	    cost_usd: number;
	    // Go type: time
	    started_at: any;
	    // Go type: time
	    ended_at: any;
	    error: string;
	    sandbox?: string;
	    mode: string;
	    instructions: Instruction[];
	
	    static createFrom(source: any = {}) {
	        return new Run(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.session_id = source["session_id"];
	        this.model = source["model"];
	        this.provider = source["provider"];
	        this.system_prompt_hash = source["system_prompt_hash"];
	        this.budgets = source["budgets"];
	        this.status = source["status"];
	        this.output = source["output"];
	        this.turns = source["turns"];
	        this.tool_calls = source["tool_calls"];
	        this.input_tokens = source["input_tokens"];
	        this.output_tokens = source["output_tokens"];
	        this.cache_read_tokens = source["cache_read_tokens"];
	        this.cache_write_tokens = source["cache_write_tokens"];
	        this.cost_usd = source["cost_usd"];
	        this.started_at = this.convertValues(source["started_at"], null);
	        this.ended_at = this.convertValues(source["ended_at"], null);
	        this.error = source["error"];
	        this.sandbox = source["sandbox"];
	        this.mode = source["mode"];
	        this.instructions = this.convertValues(source["instructions"], Instruction);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SessionBudgets {
	    max_turns?: number;
	    max_tool_calls?: number;
	    max_tokens?: number;
	    max_cost_usd?: number;
	    timeout_seconds?: number;
	
	    static createFrom(source: any = {}) {
	        return new SessionBudgets(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.max_turns = source["max_turns"];
	        this.max_tool_calls = source["max_tool_calls"];
	        this.max_tokens = source["max_tokens"];
	        this.max_cost_usd = source["max_cost_usd"];
	        this.timeout_seconds = source["timeout_seconds"];
	    }
	}
	export class SessionMode {
	    mode: string;
	    approve: string;
	
	    static createFrom(source: any = {}) {
	        return new SessionMode(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.mode = source["mode"];
	        this.approve = source["approve"];
	    }
	}
	export class Totals {
	    session_id: string;
	    runs: number;
	    turns: number;
	    tool_calls: number;
	    input_tokens: number;
	    output_tokens: number;
	    cost: number;
	    cache_read_tokens: number;
	    cache_write_tokens: number;
	    children?: ChildTotals[];
	
	    static createFrom(source: any = {}) {
	        return new Totals(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.session_id = source["session_id"];
	        this.runs = source["runs"];
	        this.turns = source["turns"];
	        this.tool_calls = source["tool_calls"];
	        this.input_tokens = source["input_tokens"];
	        this.output_tokens = source["output_tokens"];
	        this.cost = source["cost"];
	        this.cache_read_tokens = source["cache_read_tokens"];
	        this.cache_write_tokens = source["cache_write_tokens"];
	        this.children = this.convertValues(source["children"], ChildTotals);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace tools {
	
	export class HunkChoice {
	    hunk: number;
	    action: string;
	    text?: string;
	
	    static createFrom(source: any = {}) {
	        return new HunkChoice(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.hunk = source["hunk"];
	        this.action = source["action"];
	        this.text = source["text"];
	    }
	}

}

