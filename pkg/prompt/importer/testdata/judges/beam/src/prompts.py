# A fixture in the layout of BEAM's src/prompts.py: module-level
# triple-quoted prompts with <angle> placeholders. Our own words.

topic_prompt = """
Name labels for TOPIC: {} and THEME: {}.
"""

# ---------------- judge prompts ----------------

unified_llm_judge_base_prompt = """
Grade one rubric criterion.

- QUESTION: <question>
- CRITERION: <rubric_item>
- RESPONSE: <llm_response>

Give 1.0, 0.5 or 0.0. Braces stay literal: {{not a field}}.

{
   "score": [1.0, 0.5 or 0.0],
   "reason": "[why]"
}
"""

facts_prompt = """
Split into facts.
QUESTION:
<question>
TEXT:
<input_text>
"""
