# A fixture in the form of LongMemEval's src/evaluation/evaluate_qa.py, in
# our own words (the repository never holds the benchmark's prompt text).
def get_anscheck_prompt(task, question, answer, response, abstention=False):
    if not abstention:
        if task in ['single-session-user', 'single-session-assistant', 'multi-session']:
            template = "Judge it.\n\nQ: {}\n\nGold: {}\n\nSaid: {}\n\nRight? yes or no."
            prompt = template.format(question, answer, response)
        elif task == 'temporal-reasoning':
            template = "Judge time, allow off-by-one.\n\nQ: {}\n\nGold: {}\n\nSaid: {}\n\nRight? yes or no."
            prompt = template.format(question, answer, response)
        elif task == 'knowledge-update':
            template = "Judge the update. \"Latest\" wins.\n\nQ: {}\n\nGold: {}\n\nSaid: {}\n\nRight? yes or no."
            prompt = template.format(question, answer, response)
        elif task == 'single-session-preference':
            template = "Judge the {{style}}.\n\nQ: {}\n\nRubric: {}\n\nSaid: {}\n\nRight? yes or no."
            prompt = template.format(question, answer, response)
        else:
            raise NotImplementedError
    else:
        template = "Judge abstention.\n\nQ: {}\n\nWhy: {}\n\nSaid: {}\n\nAbstained? yes or no."
        prompt = template.format(question, answer, response)
    return prompt
