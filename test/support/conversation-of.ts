export { conversationOf as conversationOfEntries } from "../../src/extension/shell/conversation-of";
