export {
  createChatModel,
  type ChatModel,
  type ChatModelSettings,
  type ChatMessage,
  type Completion,
} from './chat-model.js';
export { measureModelCall, type ModelCall, type ModelUsage } from './model-call-metrics.js';
