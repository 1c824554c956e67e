export { createChatModel, type ChatModel, type ChatModelSettings, type ChatMessage, type Completion } from './chat-model.js';
