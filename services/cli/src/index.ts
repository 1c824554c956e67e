export { runCli, USAGE } from './cli.js';
export { runImport, type ImportOptions, type Io } from './import-command.js';
export { runLocomoToGroupChat } from './locomo-command.js';
export {
  readGroupChatFile,
  validateGroupChat,
  type Conversation,
  type InputFormat,
  type ReadResult,
} from './group-chat-file.js';
export { locomoToGroupChat, parseLocomoDateTime, speakerId, type GroupChatDocument } from './locomo.js';
export { messageEventId, metaEventId } from './send-kafka.js';
