// Chat templates that render history differently from how it was generated, as public models
// do. Unit tests render them on the engine test double; the real-model tests write them into
// copies of the default GGUF (test/support/fixture-models.ts).

/** Plain ChatML: every turn extends the previous render. */
export const CHATML =
  "{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/**
 * Qwen3-style (non-thinking mode): the generation prompt opens and closes an empty think
 * block, and earlier assistant turns are rendered without their thoughts.
 */
export const THOUGHTS_DROPPING =
  "{% for m in messages %}{% if m['role'] == 'assistant' %}" +
  "{{ '<|im_start|>assistant\\n' + (m['content'].split('</think>') | last).lstrip('\\n') + '<|im_end|>\\n' }}" +
  "{% else %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endif %}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n<think>\\n\\n</think>\\n\\n' }}{% endif %}";

/**
 * Mistral-style: the system prompt is rendered inside the last user message. (A newline
 * after [/INST]: without it the ChatML-trained default model ends its reply at once.)
 */
export const SYSTEM_IN_LAST_USER =
  "{% if messages[0]['role'] == 'system' %}{% set system = messages[0]['content'] %}{% set rest = messages[1:] %}" +
  "{% else %}{% set system = '' %}{% set rest = messages %}{% endif %}" +
  "{% set last_user = namespace(index=-1) %}{% for m in rest %}{% if m['role'] == 'user' %}{% set last_user.index = loop.index0 %}{% endif %}{% endfor %}" +
  "{{ bos_token }}{% for m in rest %}{% if m['role'] == 'user' %}" +
  "{% if loop.index0 == last_user.index and system %}{{ '[INST] ' + system + '\\n\\n' + m['content'] + '[/INST]\\n' }}" +
  "{% else %}{{ '[INST] ' + m['content'] + '[/INST]\\n' }}{% endif %}" +
  "{% else %}{{ m['content'] + '</s>' }}{% endif %}{% endfor %}";

/** Llama-3.1-style: a fixed date line is injected at the top of the system prompt. */
export const FIXED_DATE_LINE =
  "{{ '<|im_start|>system\\nCutting Knowledge Date: December 2023\\nToday Date: 26 Jul 2024\\n\\n' }}" +
  "{% if messages[0]['role'] == 'system' %}{{ messages[0]['content'] }}{% set rest = messages[1:] %}{% else %}{% set rest = messages %}{% endif %}" +
  "{{ '<|im_end|>\\n' }}{% for m in rest %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

/**
 * Qwen2.5-style tools (Hermes syntax): the tool list in the system block inside <tools>, calls
 * as <tool_call> JSON, results in a `tool` block (as Hermes-2-Pro renders them; with Qwen's
 * <tool_response> user block the 135M test model answers in the tool's place instead of
 * calling it). Written for these tests.
 */
export const QWEN_TOOLS =
  "{% if messages[0]['role'] == 'system' %}{% set system = messages[0]['content'] %}{% set rest = messages[1:] %}" +
  "{% else %}{% set system = 'You are a helpful assistant.' %}{% set rest = messages %}{% endif %}" +
  "{{ '<|im_start|>system\\n' + system }}" +
  "{% if tools %}{{ '\\n\\n# Tools\\n\\nYou may call functions. Their signatures are within <tools></tools>:\\n<tools>' }}" +
  "{% for tool in tools %}{{ '\\n' + (tool | tojson) }}{% endfor %}" +
  "{{ '\\n</tools>\\n\\nFor each call, write a JSON object with the function name and arguments within <tool_call></tool_call> tags:\\n<tool_call>\\n{\"name\": <name>, \"arguments\": <arguments>}\\n</tool_call>' }}{% endif %}" +
  "{{ '<|im_end|>\\n' }}" +
  "{% for m in rest %}" +
  "{% if m['role'] == 'assistant' %}{{ '<|im_start|>assistant\\n' + m['content'] }}" +
  "{% if m['tool_calls'] %}{% for call in m['tool_calls'] %}" +
  "{{ '\\n<tool_call>\\n{\"name\": \"' + call['function']['name'] + '\", \"arguments\": ' + (call['function']['arguments'] | tojson) + '}\\n</tool_call>' }}" +
  "{% endfor %}{% endif %}{{ '<|im_end|>\\n' }}" +
  "{% elif m['role'] == 'tool' %}{{ '<|im_start|>tool\\n' + m['content'] + '<|im_end|>\\n' }}" +
  "{% else %}{{ '<|im_start|>' + m['role'] + '\\n' + m['content'] + '<|im_end|>\\n' }}{% endif %}" +
  "{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export const FIXTURE_TEMPLATES = {
  chatml: CHATML,
  "thoughts-dropping": THOUGHTS_DROPPING,
  "system-in-last-user": SYSTEM_IN_LAST_USER,
  "fixed-date-line": FIXED_DATE_LINE,
  "qwen-tools": QWEN_TOOLS,
} as const;

/**
 * Templates a hostile or broken model file could carry (issue 39): kept out of
 * FIXTURE_TEMPLATES, which suites walk as "every template a model may have".
 */
export const HOSTILE_TEMPLATES = {
  // 2×10⁸ iterations: the template that made `chat --model` die with V8's fatal error after 10 s.
  looping: "{% for i in range(20000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}" + CHATML,
  // Loops only on a long conversation: the load's probe passes, a later turn is stopped.
  "looping-late": "{% if messages | length > 2 %}{% for i in range(20000) %}{% for j in range(10000) %}{% endfor %}{% endfor %}{% endif %}" + CHATML,
} as const;

export type FixtureName = keyof typeof FIXTURE_TEMPLATES | keyof typeof HOSTILE_TEMPLATES;
