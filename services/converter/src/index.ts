export { startConverter, runConverter, type ConverterOptions } from './start-converter.js';
export { handleGroupChatBatch, handleGroupChatEvent } from './handlers/group-chat-input.js';
export { fromGroupChatMessage } from './mappers/evermemos.js';
export { handleConversationBatch } from './handlers/conversation-input.js';
export { converterEnv, converterSettings, type ConverterConfig } from './config.js';
