# A fixture in another layout LongMemEval-style judges are written in: a dict
# of templates by question type, filled by %-formatting by name. Our own
# words; no benchmark's text.
JUDGE_TEMPLATES = {
    'single-session-user': "Plain check. 100%% sure?\nQ: %(question)s\nGold: %(answer)s\nSaid: %(response)s\nyes/no",
    'multi-session': "Plain check. 100%% sure?\nQ: %(question)s\nGold: %(answer)s\nSaid: %(response)s\nyes/no",
    'temporal-reasoning': ("Time check, off by one is fine.\n"
                           "Q: %(question)s\nGold: %(answer)s\nSaid: %(response)s\nyes/no"),
    'knowledge-update': "Update check: the {latest} counts.\nQ: %(question)s\nGold: %(answer)s\nSaid: %(response)s\nyes/no",
    'single-session-preference': "Taste check.\nQ: %(question)s\nRubric: %(answer)s\nSaid: %(response)s\nyes/no",
    'abstention': "Refusal check.\nQ: %(question)s\nWhy: %(answer)s\nSaid: %(response)s\nyes/no",
}


def get_anscheck_prompt(task, question, answer, response, abstention=False):
    key = 'abstention' if abstention else task
    return JUDGE_TEMPLATES[key] % {'question': question, 'answer': answer, 'response': response}
