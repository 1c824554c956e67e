export { startConverter, runConverter, type ConverterOptions } from './start-converter.js';
export { handleGroupChatMessage } from './handlers/group-chat-message.js';
