export { conversationOf as conversationOfEntries } from "../../src/extension/chats/conversation-of";
