// The webview's own state (not the conversation, which the host owns): what the user was
// typing and where they had scrolled. VS Code keeps it while the panel is hidden, so a
// hidden/shown or restored panel comes back as the user left it.
import type { HostChannel } from "./host-channel";

export interface ViewState {
  readonly draft: string;
  readonly scrollTop: number;
  readonly atBottom: boolean;
  /** The host's id for this panel: the panel serializer reads it to find the transcript after a reload. */
  readonly panelId?: string;
}

const EMPTY: ViewState = { draft: "", scrollTop: 0, atBottom: true };

export class ViewStateStore {
  private state: ViewState;

  constructor(private readonly channel: HostChannel<ViewState>) {
    this.state = normalize(channel.getState());
  }

  get current(): ViewState {
    return this.state;
  }

  update(patch: Partial<ViewState>): void {
    this.state = { ...this.state, ...patch };
    this.channel.setState(this.state);
  }
}

// State saved by an older build may lack fields; never trust its shape.
function normalize(saved: unknown): ViewState {
  if (typeof saved !== "object" || saved === null) return EMPTY;
  const s = saved as Record<string, unknown>;
  return {
    draft: typeof s.draft === "string" ? s.draft : EMPTY.draft,
    scrollTop: typeof s.scrollTop === "number" && Number.isFinite(s.scrollTop) ? s.scrollTop : EMPTY.scrollTop,
    atBottom: typeof s.atBottom === "boolean" ? s.atBottom : EMPTY.atBottom,
    ...(typeof s.panelId === "string" ? { panelId: s.panelId } : {}),
  };
}
